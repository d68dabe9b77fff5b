import { childPointer, fieldOf } from '../../json/pointer.js';
import type { ObjectKind } from '../../model/kinds.js';
import type { PackageObject } from '../../model/package.js';
import { processModel } from '../../process/index.js';
import type { Installation } from '../../model/installation.js';
import { defineObjectRule, type ObjectContext } from '../rule.js';
import { eachMapping, eachString, installationSpec, stringsOf } from '../values.js';
import { isRecord } from '../../json/guards.js';

/**
 * Reference closure (compat-package-sdk-check.md §2.5, and the references of processes of §2.6): every
 * task type, skill, agent, role, artifact type, workspace type and connection an object names must be
 * visible from its package — declared there or in its `requires` closure. Templates (`{{…}}`), `$.path`
 * expressions and `${VARIABLE}`s are values, not names, and are skipped.
 */

type Target = 'TaskType' | 'Skill' | 'Agent' | 'Role' | 'ArtifactType' | 'WorkspaceType' | 'Connection';

/** One name written in an object, and where. */
interface Reference {
  target: Target;
  /** The identity it names: a key, `name@version` for skills. */
  id: string;
  pointer: string;
  /**
   * How the message names the place when not by the field at `pointer` (`action.taskType`):
   * `step review: human.taskType`. Most references resolve: the field is named only for a finding.
   */
  field?: string;
  /** The tenant may hold it already (a process's run-as agent is provisioned with the tenant): a warning. */
  mayBeInTenant?: boolean;
}

/** A role or agent reference written as `role:<slug>` / `agent:<slug>` that does not have that form. */
interface Malformed {
  target: 'Agent' | 'Role';
  written: string;
  pointer: string;
  field: string;
}

interface Found {
  references: Reference[];
  malformed: Malformed[];
}

const SLUG = '[a-z0-9][a-z0-9-]{0,62}';
const AGENT_REF = new RegExp(`^agent:(${SLUG})$`);
const ROLE_REF = new RegExp(`^role:(${SLUG})$`);
/** The task type every tenant has; no package declares it. */
const SYSTEM_TASK_TYPE = 'task';

type Data = { field: string; id: string; pkg: string };
const missing = (what: string) => (d: Data) => `${d.field} '${d.id}' — no such ${what} in package ${d.pkg} or its requires`;

export const references = defineObjectRule({
  id: 'references/closure',
  description: 'Every object an object names is declared in its package or in the packages it requires.',
  codes: {
    unknown_task_type: {
      severity: 'error',
      summary: 'A task type reference names no TaskType of the package or its requires (the system type task is always there).',
      message: missing('TaskType'),
      core: true,
    },
    unknown_skill: {
      severity: 'error',
      summary: 'A skill reference (name@version) names no Skill of the package or its requires.',
      message: missing('Skill (name@version)'),
      core: true,
    },
    unknown_agent: {
      severity: 'error',
      summary: 'An agent reference names no Agent of the package or its requires, or is not written agent:<key>.',
      message: (d: Data | { field: string; written: string }) =>
        'written' in d
          ? `${d.field} '${d.written}' is not an agent reference — an agent reference is written agent:<key>`
          : `${d.field} references agent '${d.id}' — no such Agent in package ${d.pkg} or its requires`,
      core: true,
    },
    agent_not_declared: {
      severity: 'warning',
      summary: "A process's identity.agent is declared neither in the package nor in its requires: it must already exist in the tenant.",
      message: (d: Data) =>
        `${d.field} references agent '${d.id}' — no such Agent in package ${d.pkg} or its requires; it must already exist in the tenant`,
    },
    agent_retired: {
      severity: 'error',
      summary: 'An agent reference names an agent that the installation retires.',
      message: (d: { field: string; id: string }) => `${d.field} references agent '${d.id}', which the installation retires`,
    },
    unknown_role: {
      severity: 'error',
      summary: 'A role reference of an approval or acceptance is not written role:<slug>.',
      message: (d: { field: string; written: string }) => `${d.field} '${d.written}' is not a role reference — a role reference is written role:<slug>`,
    },
    role_not_declared: {
      severity: 'warning',
      summary: 'A role is declared neither in the package nor in its requires: it must already exist in the tenant.',
      message: (d: Data) =>
        `${d.field} '${d.id}' — no such Role in package ${d.pkg} or its requires; it must already exist in the tenant, otherwise the core refuses with unknown_role`,
    },
    unknown_artifact_type: {
      severity: 'error',
      summary: 'An artifact slot names no ArtifactType of the package or its requires.',
      message: missing('ArtifactType'),
    },
    invalid_approval_schema: {
      severity: 'error',
      summary: 'An approval invokes an external_write skill by name only, or from the rejected outcome (the core refuses it when it publishes the task type).',
      message: (d: { field: string; skill: string; reason: 'external_write_not_pinned' | 'external_write_on_rejected' }) =>
        d.reason === 'external_write_not_pinned'
          ? `${d.field}: skill '${d.skill}' writes to an external system, so an approval invokes it by name@version (external_write_not_pinned)`
          : `${d.field}: skill '${d.skill}' writes to an external system, and a rejection must not do that (external_write_on_rejected)`,
    },
    invalid_artifact_schema: {
      severity: 'error',
      summary: "An output slot's mediaTypes allow a media type that its ArtifactType does not (the core refuses it when it publishes the task type).",
      message: (d: { field: string; mediaType: string; type: string; allowed: string }) =>
        `${d.field} '${d.mediaType}' is wider than ArtifactType '${d.type}' allows (${d.allowed}) — a slot can only narrow the media types of its type`,
    },
    unknown_workspace_type: {
      severity: 'warning',
      summary: 'allowedChildTypes names a WorkspaceType declared neither in the package nor in its requires.',
      message: (d: Data) => `${d.field} '${d.id}' — no such WorkspaceType in package ${d.pkg} or its requires; it must already exist in the tenant`,
    },
    unknown_connection: {
      severity: 'warning',
      summary: 'An agent connection is the defaultKey of no ConnectionType of the package or its requires.',
      message: (d: Data) =>
        `${d.field} '${d.id}' is the defaultKey of no ConnectionType in package ${d.pkg} or its requires; the connection must already exist in the tenant`,
    },
  },
  subjects: ['TaskType', 'Agent', 'WorkRule', 'WorkspaceType', 'Process'],
  checkObject(context, object) {
    const found = referencesOf(object);
    for (const bad of found.malformed) {
      const data = { field: bad.field, written: bad.written };
      const place = { document: object.document, pointer: bad.pointer };
      if (bad.target === 'Agent') context.report('unknown_agent', place, data, { hint: 'write agent:<key of an Agent>' });
      else context.report('unknown_role', place, data, { hint: 'write role:<key of a Role>' });
    }
    for (const reference of found.references) resolve(context, object, reference);
    if (object.kind === 'TaskType') {
      checkMediaNarrowing(context, object);
      checkExternalWrites(context, object);
    }
  },
});

type Context = ObjectContext<(typeof references)['codes']>;

const CODE_OF: Record<Exclude<Target, 'Connection'>, keyof (typeof references)['codes'] & string> = {
  TaskType: 'unknown_task_type',
  Skill: 'unknown_skill',
  Agent: 'unknown_agent',
  Role: 'role_not_declared',
  ArtifactType: 'unknown_artifact_type',
  WorkspaceType: 'unknown_workspace_type',
};

function resolve(context: Context, object: PackageObject, reference: Reference): void {
  const place = { document: object.document, pointer: reference.pointer };
  // Named only for a finding: most references resolve.
  const data = () => ({ field: reference.field ?? fieldOf(reference.pointer), id: reference.id, pkg: object.package });
  if (reference.target === 'Connection') {
    if (!isVisibleDefaultKey(context, object.package, reference.id)) context.report('unknown_connection', place, data());
    return;
  }
  if (reference.target === 'Agent' && retiredAgents(context.installation).has(reference.id)) {
    context.report('agent_retired', place, { field: data().field, id: reference.id }, { hint: 'name an active agent, or stop retiring this one' });
    return;
  }
  if (reference.target === 'TaskType' && reference.id === SYSTEM_TASK_TYPE) return;
  if (context.lookup(object.package, reference.target, reference.id)) return;
  // An approval may invoke a skill by name: the core takes its latest version.
  if (reference.target === 'Skill' && !reference.id.includes('@') && context.visibleIds(object.package, 'Skill').some((id) => id.startsWith(`${reference.id}@`))) return;
  const hint = hintFor(context, object.package, reference.target, reference.id);
  const code = reference.mayBeInTenant ? 'agent_not_declared' : CODE_OF[reference.target];
  context.report(code, place, data(), hint ? { hint } : {});
}

/** Declared by a package out of reach → add it to requires; a skill in other versions → name them; else a near name. */
function hintFor(context: Context, from: string, kind: ObjectKind, id: string): string | undefined {
  const elsewhere = context.declared(kind).find((candidate) => candidate.id === id);
  if (elsewhere) return `package ${elsewhere.package} declares it: add ${elsewhere.package} to spec.requires of package ${from}`;
  if (kind === 'Skill') {
    const key = id.includes('@') ? id.slice(0, id.lastIndexOf('@')) : id;
    const versions = context.visibleIds(from, 'Skill').filter((candidate) => candidate.startsWith(`${key}@`));
    if (versions.length > 0) return `visible versions: ${versions.join(', ')}`;
  }
  return context.suggest(from, kind, id);
}

/**
 * An output narrows the media types of its artifact type: each must be covered by one of the type's. (Inputs
 * take their artifacts as they come; the core refuses mediaTypes on them.)
 */
function checkMediaNarrowing(context: Context, object: PackageObject): void {
  const schema = object.spec.artifactSchema;
  if (!isRecord(schema)) return;
  eachMapping(schema.outputs, '/spec/artifactSchema/outputs', (slot, pointer) => {
    if (typeof slot.type !== 'string' || !Array.isArray(slot.mediaTypes)) return;
    const type = context.lookup(object.package, 'ArtifactType', slot.type);
    if (!type) return;
    const allowed = stringsOf(type.spec.mediaTypes) ?? ['*/*'];
    slot.mediaTypes.forEach((mediaType, index) => {
      if (typeof mediaType !== 'string' || allowed.some((wide) => mediaTypeCovers(wide, mediaType))) return;
      const item = childPointer(childPointer(pointer, 'mediaTypes'), index);
      context.report(
        'invalid_artifact_schema',
        { document: object.document, pointer: item },
        { field: fieldOf(item), mediaType, type: slot.type as string, allowed: allowed.join(', ') },
        { hint: `narrow it to media types that ${slot.type} allows, or widen the mediaTypes of ArtifactType ${slot.type}` },
      );
    });
  });
}

/**
 * What an approval may invoke (the registry checks of the core's publication): a skill that writes to an
 * external system — any visible version of it external_write — is pinned name@version, and never invoked by a
 * rejection.
 */
function checkExternalWrites(context: Context, object: PackageObject): void {
  const gates = isRecord(object.spec.approvalSchema) ? object.spec.approvalSchema.gates : undefined;
  if (!isRecord(gates)) return;
  for (const [gate, body] of Object.entries(gates)) {
    const outcomes = isRecord(body) ? body.outcomes : undefined;
    if (!isRecord(outcomes)) continue;
    for (const [outcome, actions] of Object.entries(outcomes)) {
      eachMapping(actions, `/spec/approvalSchema/gates/${gate}/outcomes/${outcome}`, (action, pointer) => {
        const skill = isRecord(action.invokeSkill) ? action.invokeSkill.skill : undefined;
        if (typeof skill !== 'string' || isComputed(skill) || !writesExternally(context, object.package, skill.split('@')[0]!)) return;
        const place = { document: object.document, pointer: `${pointer}/invokeSkill/skill` };
        const field = fieldOf(place.pointer);
        if (!skill.includes('@')) context.report('invalid_approval_schema', place, { field, skill, reason: 'external_write_not_pinned' }, { hint: `pin a version: ${skill}@<version>` });
        if (outcome === 'rejected') context.report('invalid_approval_schema', place, { field, skill, reason: 'external_write_on_rejected' }, { hint: 'invoke it on approval, or comment on a rejection' });
      });
    }
  }
}

/** Some version of skill `key` that package `from` sees writes to an external system. */
function writesExternally(context: Context, from: string, key: string): boolean {
  const visible = context.visiblePackages(from);
  return context.declared('Skill').some((skill) => skill.key === key && visible.includes(skill.package) && skill.spec.sideEffects === 'external_write');
}

/** `*\/*` covers everything, `text/*` covers `text/…`; parameters (`; charset=…`) and case do not matter. */
export function mediaTypeCovers(wide: string, narrow: string): boolean {
  const [wideType = '', wideSub = ''] = essence(wide).split('/');
  const [narrowType = '', narrowSub = ''] = essence(narrow).split('/');
  if (wideType === '*') return true;
  if (wideType !== narrowType) return false;
  return wideSub === '*' || wideSub === narrowSub;
}

function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The agents of the installation's `retire.Agent`, read once a check (the installation is no object: see rule-memo.ts). */
function retiredAgents(installation: Installation | undefined): ReadonlySet<string> {
  if (installation === undefined) return NO_AGENTS;
  let retired = retiredByInstallation.get(installation);
  if (retired === undefined) {
    const retire = installationSpec(installation.document.value)?.retire;
    retiredByInstallation.set(installation, (retired = new Set(isRecord(retire) ? (stringsOf(retire.Agent) ?? []) : [])));
  }
  return retired;
}

const NO_AGENTS: ReadonlySet<string> = new Set();
const retiredByInstallation = new WeakMap<Installation, ReadonlySet<string>>();

/** Whether `key` is the `defaultKey` of a connection type that package `from` sees. */
function isVisibleDefaultKey(context: Context, from: string, key: string): boolean {
  const visible = context.visiblePackages(from);
  return context.declared('ConnectionType').some((type) => visible.includes(type.package) && type.spec.defaultKey === key);
}

// ---------------------------------------------------------------------------------------------------------
// What each kind names

function referencesOf(object: PackageObject): Found {
  const found: Found = { references: [], malformed: [] };
  const names = new Names(found);
  const spec = object.spec;
  switch (object.kind) {
    case 'TaskType':
      taskTypeReferences(spec, names);
      break;
    case 'Agent':
      agentReferences(spec, names);
      break;
    case 'WorkRule':
      workRuleReferences(spec, names);
      break;
    case 'WorkspaceType':
      eachString(spec.allowedChildTypes, '/spec/allowedChildTypes', (value, pointer) => names.add('WorkspaceType', value, pointer));
      break;
    case 'Process':
      processReferences(spec, names);
      break;
    default:
      break;
  }
  return found;
}

function taskTypeReferences(spec: Record<string, unknown>, names: Names): void {
  const execution = spec.execution;
  if (isRecord(execution) && typeof execution.skill === 'string' && !execution.skill.includes('@') && isVersion(execution.version)) {
    names.add('Skill', `${execution.skill}@${String(execution.version)}`, '/spec/execution/skill', 'execution');
  }
  const gates = isRecord(spec.approvalSchema) ? spec.approvalSchema.gates : undefined;
  if (isRecord(gates)) {
    for (const [gate, body] of Object.entries(gates)) {
      const outcomes = isRecord(body) ? body.outcomes : undefined;
      if (!isRecord(outcomes)) continue;
      const base = childPointer(childPointer('/spec/approvalSchema/gates', gate), 'outcomes');
      for (const [outcome, actions] of Object.entries(outcomes)) outcomeActions(actions, childPointer(base, outcome), names);
    }
  }
  const onComplete = isRecord(spec.completionSchema) ? spec.completionSchema.onComplete : undefined;
  if (isRecord(onComplete)) outcomeActions(onComplete.actions, '/spec/completionSchema/onComplete/actions', names);
  eachMapping(spec.acceptance, '/spec/acceptance', (criterion, pointer) => {
    if (isRecord(criterion.spec)) names.role(criterion.spec.approverRole, childPointer(childPointer(pointer, 'spec'), 'approverRole'));
  });
  eachString(spec.executorRoles, '/spec/executorRoles', (value, pointer) => names.add('Role', value, pointer));
  const artifacts = spec.artifactSchema;
  if (isRecord(artifacts)) {
    for (const side of ['inputs', 'outputs']) {
      eachMapping(artifacts[side], `/spec/artifactSchema/${side}`, (slot, pointer) => {
        if (typeof slot.type === 'string') names.add('ArtifactType', slot.type, childPointer(pointer, 'type'));
      });
    }
  }
}

/** Actions of an approval outcome or of onComplete, with the reactions of a skill invocation. */
function outcomeActions(actions: unknown, base: string, names: Names): void {
  eachMapping(actions, base, (action, pointer) => {
    const ensureWork = action.ensureWork;
    if (isRecord(ensureWork)) {
      const at = childPointer(pointer, 'ensureWork');
      if (typeof ensureWork.type === 'string' && !ensureWork.type.includes('$')) names.add('TaskType', ensureWork.type, childPointer(at, 'type'));
      names.assignee(ensureWork.assignee, childPointer(at, 'assignee'));
      const approval = ensureWork.requestApproval;
      if (isRecord(approval) && typeof approval.assignee === 'string' && approval.assignee.startsWith('role:')) {
        names.role(approval.assignee, childPointer(childPointer(at, 'requestApproval'), 'assignee'));
      }
    }
    const invoke = action.invokeSkill;
    if (isRecord(invoke)) {
      const at = childPointer(pointer, 'invokeSkill');
      if (typeof invoke.skill === 'string') names.add('Skill', invoke.skill, childPointer(at, 'skill'));
      outcomeActions(invoke.onSuccess, childPointer(at, 'onSuccess'), names);
      outcomeActions(invoke.onFailure, childPointer(at, 'onFailure'), names);
    }
  });
}

function agentReferences(spec: Record<string, unknown>, names: Names): void {
  if (isRecord(spec.identity)) eachString(spec.identity.roles, '/spec/identity/roles', (value, pointer) => names.add('Role', value, pointer));
  if (isRecord(spec.work)) eachString(spec.work.taskTypes, '/spec/work/taskTypes', (value, pointer) => names.add('TaskType', value, pointer));
  eachString(spec.connections, '/spec/connections', (value, pointer) => names.add('Connection', value, pointer));
}

function workRuleReferences(spec: Record<string, unknown>, names: Names): void {
  if (isRecord(spec.identity) && typeof spec.identity.agent === 'string') names.add('Agent', spec.identity.agent, '/spec/identity/agent');
  if (isRecord(spec.trigger) && typeof spec.trigger.agent === 'string') names.add('Agent', spec.trigger.agent, '/spec/trigger/agent');
  if (isRecord(spec.interpretation) && typeof spec.interpretation.skill === 'string') {
    names.add('Skill', spec.interpretation.skill, '/spec/interpretation/skill');
  }
  const action = spec.action;
  if (!isRecord(action)) return;
  if (typeof action.taskType === 'string') names.add('TaskType', action.taskType, '/spec/action/taskType');
  eachString(action.taskTypes, '/spec/action/taskTypes', (value, pointer) => names.add('TaskType', value, pointer));
  if (isRecord(action.fields)) {
    names.assignee(action.fields.assignee, '/spec/action/fields/assignee');
    names.role(action.fields.approverRole, '/spec/action/fields/approverRole');
  }
}

function processReferences(spec: Record<string, unknown>, names: Names): void {
  if (isRecord(spec.identity) && typeof spec.identity.agent === 'string') {
    // The reference's corpus ships a valid process whose run-as agent no package declares (intake-demo).
    names.add('Agent', spec.identity.agent, '/spec/identity/agent', undefined, true);
  }
  eachMapping(spec.owner, '/spec/owner', (candidate, pointer) => {
    if (typeof candidate.agent === 'string') names.add('Agent', candidate.agent, childPointer(pointer, 'agent'));
  });
  if (isRecord(spec.retrospective) && typeof spec.retrospective.taskType === 'string') {
    names.add('TaskType', spec.retrospective.taskType, '/spec/retrospective/taskType');
  }
  assignedRoles(spec.owner, '/spec/owner', names);
  if (isRecord(spec.retrospective)) assignedRoles(spec.retrospective.assign, '/spec/retrospective/assign', names);
  const model = processModel(spec);
  for (const element of model.elements) {
    const step = model.stepAt(element.pointer);
    const name = (field: string, value: unknown, target: Target): void => {
      if (typeof value === 'string' && step !== undefined) {
        names.add(target, value, `${step.pointer}/${step.kind}/${field}`, `step ${element.id}: ${step.kind}.${field}`);
      }
    };
    if (step?.kind === 'human' || step?.kind === 'approve') {
      name('taskType', isRecord(step.body) ? step.body.taskType : undefined, 'TaskType');
      stepAssignedRoles(step.body, `${step.pointer}/${step.kind}`, names);
    }
    if (step?.kind === 'call' && isRecord(step.body)) {
      name('skill', step.body.skill, 'Skill');
      name('agent', step.body.agent, 'Agent');
    }
  }
}

/**
 * The roles candidates of an assign chain name, `{role: <slug>}` (role_references of the core): each a Role of
 * the package or its requires, or of the tenant — a misspelt one no longer passes silently.
 */
function assignedRoles(chain: unknown, pointer: string, names: Names): void {
  eachMapping(chain, pointer, (candidate, place) => {
    if (typeof candidate.role === 'string') names.add('Role', candidate.role, childPointer(place, 'role'));
  });
}

/** The assign chains of a human or approve step: its assignees or approvers, and whom its escalations reassign to. */
function stepAssignedRoles(body: unknown, pointer: string, names: Names): void {
  if (!isRecord(body)) return;
  assignedRoles(body.assign, childPointer(pointer, 'assign'), names);
  assignedRoles(body.approvers, childPointer(pointer, 'approvers'), names);
  eachMapping(body.escalations, childPointer(pointer, 'escalations'), (escalation, at) => assignedRoles(escalation.to, childPointer(at, 'to'), names));
}

/** Collects references, skipping values that are computed rather than written. */
class Names {
  constructor(private readonly found: Found) {}

  add(target: Target, id: string, pointer: string, field?: string, mayBeInTenant = false): void {
    if (isComputed(id)) return;
    this.found.references.push({ target, id, pointer, ...(field !== undefined ? { field } : {}), ...(mayBeInTenant ? { mayBeInTenant } : {}) });
  }

  /** A task assignee: `agent:<key>` names an agent, `role:<slug>` a role; anything else is a principal. */
  assignee(value: unknown, pointer: string): void {
    if (typeof value !== 'string' || isComputed(value)) return;
    if (value.startsWith('agent:')) this.prefixed('Agent', AGENT_REF, value, pointer);
    else if (value.startsWith('role:')) this.prefixed('Role', ROLE_REF, value, pointer);
  }

  /** A place that takes only `role:<slug>`. */
  role(value: unknown, pointer: string): void {
    if (typeof value !== 'string' || isComputed(value)) return;
    this.prefixed('Role', ROLE_REF, value, pointer);
  }

  private prefixed(target: 'Agent' | 'Role', form: RegExp, value: string, pointer: string): void {
    const slug = form.exec(value)?.[1];
    if (slug === undefined) this.found.malformed.push({ target, written: value, pointer, field: fieldOf(pointer) });
    else this.add(target, slug, pointer);
  }
}

/** `{{item.type}}`, `$.task.x`, `${VARIABLE}`: a value produced at run or install time, not a name. */
function isComputed(value: string): boolean {
  return value.includes('{{') || value.includes('$');
}

function isVersion(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}
