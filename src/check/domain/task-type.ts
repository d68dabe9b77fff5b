/**
 * A task type as the core publishes it (compat-core-validators.md §1): its execution, field schema, lifecycle,
 * approval, context profile, instructions, completion, artifact slots, acceptance checks and executor roles.
 * What needs the tenant's registry (skills, roles, artifact types) is the reference rules'.
 */
import { isRecord } from '../../json/guards.js';
import { approvalProblems, completionProblems, type Statuses } from './approval.js';
import { expressionsIn, fieldProblem } from './expressions.js';
import { credentialProblems, guardProblems, SMALL_DOCUMENT_BYTES } from './json-guard.js';
import { jsonSchemaProblems } from './json-schema.js';
import { lifecycleProblems } from './lifecycle.js';
import { at, isInteger, isText, listed, Problems, type DomainProblem } from './problems.js';

/** The lifecycle every task type has unless it declares its own. */
const SYSTEM_LIFECYCLE: Statuses = new Map([
  ['backlog', 'backlog'],
  ['todo', 'active'],
  ['in_progress', 'active'],
  ['blocked', 'blocked'],
  ['done', 'terminal_success'],
  ['cancelled', 'terminal_cancelled'],
]);

/** Every problem of a task type's spec, part by part in the core's order. */
export function taskTypeProblems(spec: Record<string, unknown>): DomainProblem[] {
  const lifecycle = spec.lifecycleSchema === undefined || spec.lifecycleSchema === null ? { problems: [], statuses: SYSTEM_LIFECYCLE } : lifecycleProblems(spec.lifecycleSchema, '/spec/lifecycleSchema', 'work item');
  return [
    ...executionProblems(spec.execution, '/spec/execution'),
    ...jsonSchemaProblems(spec.fieldSchema ?? {}, '/spec/fieldSchema', { label: 'fieldSchema' }),
    ...lifecycle.problems,
    ...approvalProblems(spec.approvalSchema, '/spec/approvalSchema', lifecycle.statuses),
    ...contextProblems(spec.contextSchema, '/spec/contextSchema'),
    ...instructionsProblems(spec.instructions, '/spec/instructions'),
    ...completionProblems(spec.completionSchema, '/spec/completionSchema'),
    ...artifactSchemaProblems(spec.artifactSchema, '/spec/artifactSchema'),
    ...acceptanceProblems(spec.acceptance, '/spec/acceptance'),
    ...executorRolesProblems(spec.executorRoles, '/spec/executorRoles'),
  ];
}

const EXECUTION_FIELDS = ['skill', 'version', 'inputs'];
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
const INPUT_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[[0-9]{1,6}\])*$/;
const MAX_INPUTS = 100;

/** `execution`: one skill version the task is executed by, and the paths of its inputs. */
function executionProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null) return [];
  const problems = new Problems('invalid_task_execution');
  if (!isRecord(value)) {
    problems.add(pointer, 'execution must be an object {skill, version, inputs}');
    return problems.list;
  }
  const unknown = Object.keys(value).filter((key) => !EXECUTION_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `Unknown execution fields ${listed(unknown)}`, { atKey: true, hint: 'execution has skill, version and inputs' });
  if (!isText(value.skill, 200) || value.skill.includes('@')) {
    problems.add(at(pointer, 'skill'), 'execution.skill must be a skill name', { hint: 'the name without @version; the version goes into execution.version' });
  }
  if (!isText(value.version, 50)) problems.add(at(pointer, 'version'), 'execution.version must pin a skill version', { hint: "a string, e.g. version: '1'" });
  const inputs = value.inputs;
  const path = (text: unknown, place: string) => {
    if (typeof text !== 'string' || text.length > 500 || !INPUT_PATH.test(text)) problems.add(place, 'an input path must look like $.customFields.name or $.items[0]');
  };
  if (inputs === undefined || inputs === null || typeof inputs === 'string') {
    if (typeof inputs === 'string') path(inputs, at(pointer, 'inputs'));
  } else if (isRecord(inputs)) {
    if (Object.keys(inputs).length > MAX_INPUTS) problems.add(at(pointer, 'inputs'), 'too many input mappings');
    for (const [name, text] of Object.entries(inputs)) {
      if (!INPUT_NAME.test(name)) problems.add(at(pointer, 'inputs', name), `invalid input name '${name}'`, { atKey: true });
      path(text, at(pointer, 'inputs', name));
    }
  } else {
    problems.add(at(pointer, 'inputs'), 'execution.inputs must be a path or an object {inputName: path}');
  }
  return problems.list;
}

const CONTEXT_FIELDS = ['anchors', 'traverse', 'asOf', 'budgetTokens'];
const ANCHOR_FIELDS = ['from', 'kind', 'kinds', 'via'];
const STEP_FIELDS = ['relation', 'direction', 'depth', 'limit', 'from'];
const NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** `contextSchema`: the context profile of the task — anchors in memory and how far to walk from them. */
function contextProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0)) return [];
  const problems = new Problems('invalid_context_schema');
  if (!isRecord(value)) {
    problems.add(pointer, 'contextSchema must be an object');
    return problems.list;
  }
  const guard = guardProblems(value, pointer, 'contextSchema', 'invalid_context_schema', SMALL_DOCUMENT_BYTES);
  if (guard.length > 0) return guard;
  const unknown = Object.keys(value).filter((key) => !CONTEXT_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `contextSchema: unknown keys ${listed(unknown)}`, { atKey: true, hint: `keys: ${CONTEXT_FIELDS.join(', ')}` });
  const anchors = value.anchors;
  if (!Array.isArray(anchors) || anchors.length === 0 || anchors.length > 20) problems.add(at(pointer, 'anchors'), 'anchors must be a non-empty list of at most 20 anchors');
  else anchors.forEach((anchor, index) => contextAnchor(anchor, at(pointer, 'anchors', index), problems));
  if ('traverse' in value) {
    const steps = value.traverse;
    if (!Array.isArray(steps) || steps.length > 10) problems.add(at(pointer, 'traverse'), 'traverse must be a list of at most 10 steps');
    else steps.forEach((step, index) => traverseStep(step, at(pointer, 'traverse', index), problems));
  }
  if ('asOf' in value && !['taskCreated', 'now', 'origin'].includes(value.asOf as string)) problems.add(at(pointer, 'asOf'), "asOf must be one of ['taskCreated', 'now', 'origin']");
  if ('budgetTokens' in value && !(isInteger(value.budgetTokens) && value.budgetTokens >= 1 && value.budgetTokens <= 32_000)) {
    problems.add(at(pointer, 'budgetTokens'), 'budgetTokens must be an integer from 1 to 32000');
  }
  return problems.list;
}

function contextAnchor(anchor: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(anchor)) return problems.add(pointer, 'an anchor must be an object {from, kind | kinds, via?}');
  const unknown = Object.keys(anchor).filter((key) => !ANCHOR_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `an anchor has unknown keys ${listed(unknown)}`, { atKey: true });
  const fromProblem = anchorSourceProblem(anchor.from);
  if (fromProblem) problems.add(at(pointer, 'from'), fromProblem);
  if (('kind' in anchor) === ('kinds' in anchor)) problems.add(pointer, "give either 'kind' or 'kinds'");
  if ('kind' in anchor && !(typeof anchor.kind === 'string' && NAME.test(anchor.kind))) problems.add(at(pointer, 'kind'), `kind must match ${NAME.source}`);
  if ('kinds' in anchor) {
    const kinds = anchor.kinds;
    if (!Array.isArray(kinds) || kinds.length === 0 || kinds.length > 20) problems.add(at(pointer, 'kinds'), 'kinds must be a non-empty list of at most 20 kinds');
    else kinds.forEach((kind, index) => typeof kind === 'string' && NAME.test(kind) ? undefined : problems.add(at(pointer, 'kinds', index), `kinds must match ${NAME.source}`));
  }
  if ('via' in anchor && !(typeof anchor.via === 'string' && NAME.test(anchor.via))) problems.add(at(pointer, 'via'), `via must match ${NAME.source}`);
}

/** `from` of an anchor: the task's description or title, or a `$.` path of the task (roots default to the task). */
function anchorSourceProblem(from: unknown): string | undefined {
  if (from === 'description' || from === 'title') return undefined;
  const expected = "from must be 'description', 'title' or a $. path of the task";
  if (typeof from !== 'string') return expected;
  const [expression] = expressionsIn(from.trim());
  if (expression === undefined || expression.offset !== 0 || expression.text.length !== from.trim().length) return expected;
  if (expression.required || expression.filter !== undefined) return 'an anchor path takes no ! and no |truncate';
  const taskRooted = expression.root === 'task' || expression.root === 'spawnedBy';
  const segments = taskRooted ? expression.segments : [{ name: expression.root }, ...expression.segments];
  const problem = fieldProblem(taskRooted ? expression.root : 'task', segments, { shortArtifact: true });
  return problem === undefined ? undefined : `unsupported expression '${expression.text}': ${problem}`;
}

function traverseStep(step: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(step)) return problems.add(pointer, 'a traverse step must be an object {relation, direction?, depth?, limit?, from?}');
  const unknown = Object.keys(step).filter((key) => !STEP_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `a traverse step has unknown keys ${listed(unknown)}`, { atKey: true });
  if (!(typeof step.relation === 'string' && NAME.test(step.relation))) problems.add(at(pointer, 'relation'), `relation must be a name matching ${NAME.source}`);
  if ('direction' in step && !['in', 'out', 'both'].includes(step.direction as string)) problems.add(at(pointer, 'direction'), "direction must be one of ['in', 'out', 'both']");
  if ('from' in step && !['anchors', 'previous'].includes(step.from as string)) problems.add(at(pointer, 'from'), "from must be one of ['anchors', 'previous']");
  if ('depth' in step && !(isInteger(step.depth) && step.depth >= 1 && step.depth <= 5)) problems.add(at(pointer, 'depth'), 'depth must be an integer from 1 to 5');
  if ('limit' in step && !(isInteger(step.limit) && step.limit >= 1 && step.limit <= 200)) problems.add(at(pointer, 'limit'), 'limit must be an integer from 1 to 200');
}

const MAX_INSTRUCTIONS = 16 * 1024;

/** `instructions`: text of at most 16 KiB without credentials. */
export function instructionsProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null) return [];
  const problems = new Problems('invalid_instructions');
  if (typeof value !== 'string') {
    problems.add(pointer, 'instructions must be a string');
    return problems.list;
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_INSTRUCTIONS) problems.add(pointer, `instructions are ${bytes} bytes in UTF-8, more than ${MAX_INSTRUCTIONS}`, { code: 'instructions_too_large' });
  problems.addAll(credentialProblems(value, pointer, 'instructions'));
  return problems.list;
}

const SLOT_KEY = /^[a-z0-9][a-z0-9_-]{0,55}$/;
const TYPE_KEY = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MEDIA_PATTERN = /^(?:\*\/\*|[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*))$/;
const SLOT_FIELDS = { inputs: ['key', 'type', 'from', 'required'], outputs: ['key', 'type', 'required', 'mediaTypes', 'content'] } as const;

/** `artifactSchema`: the artifacts a task takes (from related tasks) and gives. */
function artifactSchemaProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null) return [];
  const problems = new Problems('invalid_artifact_schema');
  if (!isRecord(value)) {
    problems.add(pointer, 'artifactSchema must be an object {inputs?, outputs?}');
    return problems.list;
  }
  const guard = guardProblems(value, pointer, 'artifactSchema', 'invalid_artifact_schema');
  if (guard.length > 0) return guard.map((problem) => ({ ...problem, code: 'invalid_artifact_schema' }));
  const unknown = Object.keys(value).filter((key) => key !== 'inputs' && key !== 'outputs');
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `artifactSchema: unknown keys ${listed(unknown)}`, { atKey: true, hint: 'an artifact schema has inputs and outputs' });
  for (const side of ['inputs', 'outputs'] as const) {
    if (!(side in value) || value[side] === null) continue;
    const list = value[side];
    if (!Array.isArray(list) || list.length > 32) {
      problems.add(at(pointer, side), `artifactSchema.${side} must be a list of at most 32 slots`);
      continue;
    }
    const keys = new Set<string>();
    list.forEach((slot, index) => artifactSlot(slot, at(pointer, side, index), side, keys, problems));
  }
  return problems.list;
}

function artifactSlot(slot: unknown, pointer: string, side: 'inputs' | 'outputs', keys: Set<string>, problems: Problems): void {
  if (!isRecord(slot)) return problems.add(pointer, 'a slot must be an object');
  const allowed: readonly string[] = SLOT_FIELDS[side];
  for (const key of Object.keys(slot).filter((name) => !allowed.includes(name))) {
    problems.add(at(pointer, key), `${side === 'inputs' ? 'an input' : 'an output'} has no field '${key}'`, { atKey: true, hint: `fields: ${allowed.join(', ')}` });
  }
  if (typeof slot.key !== 'string' || !SLOT_KEY.test(slot.key)) problems.add(at(pointer, 'key'), `key must match ${SLOT_KEY.source}`);
  else if (keys.has(slot.key)) problems.add(at(pointer, 'key'), `duplicate ${side === 'inputs' ? 'input' : 'output'} key '${slot.key}'`);
  else keys.add(slot.key);
  if (typeof slot.type !== 'string' || !TYPE_KEY.test(slot.type)) problems.add(at(pointer, 'type'), `type must be an artifact type key matching ${TYPE_KEY.source}`);
  if ('required' in slot && typeof slot.required !== 'boolean') problems.add(at(pointer, 'required'), 'required must be a boolean');
  if (side === 'inputs' && !['depends_on', 'spawned_by', 'parent'].includes(slot.from as string)) {
    problems.add(at(pointer, 'from'), "from must be one of ['depends_on', 'spawned_by', 'parent']");
  }
  if (side === 'outputs' && 'content' in slot && !['required', 'optional'].includes(slot.content as string)) {
    problems.add(at(pointer, 'content'), "content must be one of ['required', 'optional']");
  }
  if (side === 'outputs' && 'mediaTypes' in slot) problems.addAll(mediaTypesProblems(slot.mediaTypes, at(pointer, 'mediaTypes'), 'invalid_artifact_schema'));
}

/** A non-empty list of at most 50 media type patterns (`type/subtype`, `type/*`, `*\/*`). */
export function mediaTypesProblems(value: unknown, pointer: string, code: string): DomainProblem[] {
  const problems = new Problems(code);
  if (!Array.isArray(value) || value.length === 0 || value.length > 50) {
    problems.add(pointer, 'mediaTypes must be a non-empty list of at most 50 media type patterns');
    return problems.list;
  }
  value.forEach((item, index) => {
    const essence = typeof item === 'string' ? (item.split(';')[0] ?? '').trim().toLowerCase() : '';
    if (!MEDIA_PATTERN.test(essence)) problems.add(at(pointer, index), `'${String(item)}' is not a media type pattern (type/subtype, type/* or */*)`);
  });
  return problems.list;
}

const ACCEPTANCE_SPECS: Record<string, { allowed: readonly string[] }> = {
  deterministic: { allowed: ['skill', 'inputs', 'expect', 'artifact'] },
  external_state: { allowed: ['event'] },
  human: { allowed: ['approver', 'approverRole'] },
  llm_judge: { allowed: ['approver', 'approverRole', 'rubric'] },
};
const SKILL_VERSION = /^[^@\s]{1,200}@[^@\s]{1,50}$/;

/**
 * `acceptance`: the checks of the verification stage — their form (as the request model has it), unique
 * keys, and each spec by the grammar of its kind.
 */
function acceptanceProblems(value: unknown, pointer: string): DomainProblem[] {
  if (!Array.isArray(value)) return [];
  const problems = new Problems('invalid_acceptance_spec');
  if (value.length > 50) problems.add(pointer, 'at most 50 acceptance checks are allowed', { code: 'invalid_task_type' });
  const keys = new Set<string>();
  value.forEach((check, index) => {
    const here = at(pointer, index);
    if (!isRecord(check)) return;
    if (typeof check.key === 'string') {
      if (check.key.length === 0 || [...check.key].length > 63) problems.add(at(here, 'key'), 'a check key has 1 to 63 characters', { code: 'invalid_task_type' });
      else if (keys.has(check.key)) problems.add(at(here, 'key'), `duplicate check key '${check.key}'`, { code: 'duplicate_check_key' });
      keys.add(check.key);
    }
    if (typeof check.description === 'string' && (check.description.length === 0 || [...check.description].length > 2000)) {
      problems.add(at(here, 'description'), 'a check description has 1 to 2000 characters', { code: 'invalid_task_type' });
    }
    if (Array.isArray(check.when) && (check.when.length === 0 || check.when.length > 8)) problems.add(at(here, 'when'), 'when holds 1 to 8 expressions', { code: 'invalid_task_type' });
    else if (Array.isArray(check.when)) {
      check.when.forEach((item, j) => {
        if (typeof item === 'string' && (item.length === 0 || item.length > 500)) problems.add(at(here, 'when', j), 'an expression of when has 1 to 500 characters', { code: 'invalid_task_type' });
      });
    }
    if (typeof check.kind === 'string') acceptanceSpec(check.kind, check.spec, at(here, 'spec'), problems);
  });
  return problems.list;
}

function acceptanceSpec(kind: string, spec: unknown, pointer: string, problems: Problems): void {
  const grammar = ACCEPTANCE_SPECS[kind];
  if (grammar === undefined) return;
  if (spec === undefined || spec === null) {
    if (kind === 'deterministic') problems.add(pointer, 'a deterministic check names a skill {skill: name@version, inputs?, expect?} or an artifact {artifact: {type, mediaTypes?, content?}}');
    return;
  }
  if (!isRecord(spec)) return problems.add(pointer, `the spec of a ${kind} check must be an object`);
  for (const key of Object.keys(spec).filter((name) => !grammar.allowed.includes(name))) {
    problems.add(at(pointer, key), `a ${kind} check has no '${key}'`, { atKey: true, hint: `a ${kind} spec has ${grammar.allowed.join(', ')}` });
  }
  if (kind === 'deterministic') {
    if (('skill' in spec) === ('artifact' in spec)) problems.add(pointer, 'a deterministic check names either a skill or an artifact');
    else if ('skill' in spec && !(typeof spec.skill === 'string' && SKILL_VERSION.test(spec.skill))) problems.add(at(pointer, 'skill'), 'skill must be name@version');
    else if ('artifact' in spec && 'inputs' in spec) problems.add(at(pointer, 'inputs'), 'an artifact check takes no inputs');
    else if ('artifact' in spec) artifactCheck(spec.artifact, at(pointer, 'artifact'), problems);
  }
  if ((kind === 'human' || kind === 'llm_judge') && 'approver' in spec && 'approverRole' in spec) {
    problems.add(pointer, `a ${kind} check names an approver or an approverRole, not both`);
  }
}

function artifactCheck(value: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(value)) return problems.add(pointer, 'artifact must be an object {type, mediaTypes?, content?}');
  for (const key of Object.keys(value).filter((name) => !['type', 'mediaTypes', 'content'].includes(name))) {
    problems.add(at(pointer, key), `an artifact check has no '${key}'`, { atKey: true });
  }
  if (typeof value.type !== 'string' || !TYPE_KEY.test(value.type)) problems.add(at(pointer, 'type'), 'type must be an artifact type key');
  if ('mediaTypes' in value) problems.addAll(mediaTypesProblems(value.mediaTypes, at(pointer, 'mediaTypes'), 'invalid_acceptance_spec'));
}

const ROLE_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** `executorRoles`: at most 20 distinct role slugs of two characters or more. */
function executorRolesProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null) return [];
  const problems = new Problems('invalid_executor_roles');
  if (!Array.isArray(value) || value.length > 20) {
    problems.add(pointer, 'executorRoles must be a list of at most 20 role slugs');
    return problems.list;
  }
  const seen = new Set<string>();
  value.forEach((role, index) => {
    if (typeof role !== 'string' || !ROLE_SLUG.test(role)) problems.add(at(pointer, index), `a role slug matches ${ROLE_SLUG.source} (two characters or more)`);
    else if (seen.has(role)) problems.add(at(pointer, index), `'${role}' is listed twice`);
    seen.add(String(role));
  });
  return problems.list;
}
