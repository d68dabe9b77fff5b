/**
 * Approval and completion schemas of a task type (compat-core-validators.md §1.5, §1.8): gates, their
 * preconditions and outcomes, and the actions an outcome or a completion runs — with the `$.` expressions
 * their strings may hold.
 */
import { isRecord } from '../../json/guards.js';
import { guardProblems, secretKeyProblems } from './json-guard.js';
import { expressionProblem, expressionsIn, wholeExpression } from './expressions.js';
import { at, listed, Problems, type DomainProblem } from './problems.js';
import { conditionProblems } from './rule-condition.js';

const ACTIONS = ['ensureWork', 'completeTask', 'comment', 'transition', 'invokeSkill'] as const;
type ActionName = (typeof ACTIONS)[number];

/** The inputs of each action: required ones first. */
const INPUTS: Record<ActionName, { required: readonly string[]; optional: readonly string[] }> = {
  ensureWork: { required: ['type', 'key', 'title'], optional: ['description', 'assignee', 'relation', 'priority', 'workspace', 'customFields', 'requestApproval'] },
  completeTask: { required: [], optional: ['task'] },
  comment: { required: ['body'], optional: ['task'] },
  transition: { required: ['status'], optional: ['task'] },
  invokeSkill: { required: ['skill'], optional: ['inputs', 'expect', 'onSuccess', 'onFailure'] },
};

const MAX_ACTIONS = 20;
const MAX_TEXT = 10_000;
const MAX_GATES = 16;
const MAX_PRECONDITIONS = 10;
const MAX_CUSTOM_FIELDS = 32;
const GATE_NAME = /^[a-z][a-z0-9_.-]{0,62}$/;
const TYPE_KEY = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const WORK_KEY = /^[A-Za-z0-9_.:/$[\]! -]{1,200}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const SKILL_REF = /^[a-z0-9][a-z0-9_.-]{0,126}(@[A-Za-z0-9][A-Za-z0-9_.+-]{0,63})?$/;
const OBSERVATION_KIND = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const OBSERVATION_SOURCE = /^[a-z0-9][a-z0-9._:/-]{0,127}$/;
const OBSERVATION_TASK = /^\$\.(task|spawnedBy)\.id!?$/;
const PRIORITIES = ['critical', 'high', 'medium', 'low'];
const RELATIONS = ['parent', 'blocks', 'depends_on', 'spawned_by', 'related_to'];
const GATED_TASK = /^\$\.task\.(id|publicId)!?$/;
const OUTCOME_ROOTS = ['task', 'spawnedBy', 'approval'];
const TEMPLATE_ROOTS = ['task', 'spawnedBy'];

/** The statuses of the type's own lifecycle, with their categories (to know a terminal one). */
export type Statuses = ReadonlyMap<string, string | undefined>;

/** Where a list of actions is, and what its strings may read. */
interface Scope {
  roots: readonly string[];
  /** Declared statuses of the type (undefined where they are not known: completions, a broken lifecycle). */
  statuses?: Statuses;
  /** Inside onSuccess/onFailure of an invocation. */
  reaction: boolean;
  /** How an expression over another root is refused (completions word it their way). */
  rootProblem?: (root: string) => string;
}

/** `approvalSchema` of a task type (default `{}`: no gate). */
export function approvalProblems(value: unknown, pointer: string, statuses: Statuses | undefined): DomainProblem[] {
  if (value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0)) return [];
  const guard = guardProblems(value, pointer, 'approvalSchema', 'invalid_approval_schema');
  if (guard.length > 0 || !isRecord(value)) return guard;
  const problems = new Problems('invalid_approval_schema');
  problems.addAll(secretKeyProblems(value, pointer, 'an approval schema'));
  const unknown = Object.keys(value).filter((key) => key !== 'gates');
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `approvalSchema: unknown keys ${listed(unknown)}`, { atKey: true, hint: 'an approval schema has gates' });
  const gates = value.gates;
  if (!isRecord(gates) || Object.keys(gates).length === 0) {
    problems.add(at(pointer, 'gates'), 'approvalSchema.gates must be a non-empty object');
    return problems.list;
  }
  if (Object.keys(gates).length > MAX_GATES) problems.add(at(pointer, 'gates'), `at most ${MAX_GATES} gates are allowed`);
  for (const [name, gate] of Object.entries(gates)) {
    const here = at(pointer, 'gates', name);
    if (!GATE_NAME.test(name)) problems.add(here, `gate name '${name}' must match ${GATE_NAME.source}`, { atKey: true });
    else if (name !== 'default') problems.add(here, "only the 'default' gate is supported until approvals carry a gate name", { atKey: true, hint: 'name the gate default' });
    if (!isRecord(gate) || Object.keys(gate).length === 0 || Object.keys(gate).some((key) => key !== 'outcomes' && key !== 'preconditions')) {
      problems.add(here, `gate '${name}' must be an object with 'outcomes' and/or 'preconditions'`);
      continue;
    }
    if ('preconditions' in gate) preconditions(gate.preconditions, at(here, 'preconditions'), problems);
    if ('outcomes' in gate) outcomes(gate.outcomes, at(here, 'outcomes'), statuses, problems);
  }
  return problems.list;
}

function outcomes(value: unknown, pointer: string, statuses: Statuses | undefined, problems: Problems): void {
  if (!isRecord(value) || Object.keys(value).some((key) => key !== 'approved' && key !== 'rejected')) {
    problems.add(pointer, "outcomes must be an object whose keys are only 'approved' and/or 'rejected'");
    return;
  }
  for (const [outcome, list] of Object.entries(value)) {
    actions(list, at(pointer, outcome), { roots: OUTCOME_ROOTS, reaction: false, ...(statuses ? { statuses } : {}) }, problems);
  }
}

/** Preconditions of approving: observations the approval waits for. */
function preconditions(value: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(value) || Object.keys(value).some((key) => key !== 'approved')) {
    problems.add(pointer, "preconditions are only of ['approved'] — rejecting is always possible");
    return;
  }
  const list = value.approved;
  const here = at(pointer, 'approved');
  if (!Array.isArray(list) || list.length > MAX_PRECONDITIONS) {
    problems.add(here, `preconditions.approved must be a list of at most ${MAX_PRECONDITIONS} preconditions`);
    return;
  }
  list.forEach((item, index) => {
    const place = at(here, index);
    if (!isRecord(item)) return problems.add(place, 'a precondition must be an object {observation, condition?, reason}');
    const unknown = Object.keys(item).filter((key) => !['observation', 'condition', 'reason'].includes(key));
    if (unknown.length > 0) problems.add(at(place, unknown[0]!), `a precondition has unknown keys ${listed(unknown)}`, { atKey: true });
    for (const key of ['observation', 'reason']) if (!(key in item)) problems.add(place, `a precondition needs '${key}'`);
    if ('observation' in item) observation(item.observation, at(place, 'observation'), problems);
    for (const problem of conditionProblems(item.condition, at(place, 'condition'), ['observation'])) {
      problems.add(problem.pointer, `condition: ${problem.problem}`, problem.atKey ? { atKey: true } : {});
    }
    if ('reason' in item) {
      if (typeof item.reason !== 'string' || item.reason.trim().length === 0 || item.reason.length > 1000) {
        problems.add(at(place, 'reason'), 'reason must be a non-empty string of at most 1000 characters');
      } else templateReads(item.reason, at(place, 'reason'), problems);
    }
  });
}

function observation(value: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(value)) return problems.add(pointer, 'observation must be an object {kind, source?, task?, externalRef?}');
  const unknown = Object.keys(value).filter((key) => !['kind', 'source', 'task', 'externalRef'].includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `observation has unknown keys ${listed(unknown)}`, { atKey: true });
  if (typeof value.kind !== 'string' || !OBSERVATION_KIND.test(value.kind)) problems.add(at(pointer, 'kind'), 'observation.kind must be an observation kind');
  if (value.source !== undefined && !(typeof value.source === 'string' && OBSERVATION_SOURCE.test(value.source))) {
    problems.add(at(pointer, 'source'), 'observation.source must be an observation source');
  }
  if (value.task !== undefined && !(typeof value.task === 'string' && OBSERVATION_TASK.test(value.task))) {
    problems.add(at(pointer, 'task'), 'observation.task must be $.task.id or $.spawnedBy.id');
  }
  if (value.externalRef !== undefined) {
    if (typeof value.externalRef !== 'string' || value.externalRef.trim().length === 0) problems.add(at(pointer, 'externalRef'), 'observation.externalRef must be a non-empty string');
    else templateReads(value.externalRef, at(pointer, 'externalRef'), problems);
  }
}

/** A template of a precondition reads only the task and the task that spawned it. */
function templateReads(text: string, pointer: string, problems: Problems): void {
  for (const expression of expressionsIn(text)) {
    const problem = expressionProblem(expression, TEMPLATE_ROOTS);
    if (problem) problems.add(pointer, problem);
  }
}

/** A list of actions of an outcome, a reaction or a completion. */
function actions(list: unknown, pointer: string, scope: Scope, problems: Problems): void {
  if (!Array.isArray(list) || list.length > MAX_ACTIONS) {
    problems.add(pointer, `must be a list of at most ${MAX_ACTIONS} actions`);
    return;
  }
  let closing: string | undefined;
  let invoking: string | undefined;
  list.forEach((item, index) => {
    const here = at(pointer, index);
    const name = action(item, here, scope, problems);
    if (name === undefined || !isRecord(item)) return;
    const body = item[name];
    if (name === 'invokeSkill') {
      if (closing !== undefined) problems.add(here, `invokeSkill must come before ${closing}, which closes the task`, { hint: 'close the task in onSuccess/onFailure of the invocation' });
      invoking ??= isRecord(body) && typeof body.skill === 'string' ? body.skill : 'the skill';
    } else if (closesGatedTask(name, body, scope.statuses)) {
      if (invoking !== undefined) {
        problems.add(here, `${name} closes the task while the skill ${invoking} may not have run yet; close it in onSuccess/onFailure`);
      }
      closing ??= name;
    }
  });
}

/** One action: an object with exactly one known key. Returns its name when it has one. */
function action(item: unknown, pointer: string, scope: Scope, problems: Problems): ActionName | undefined {
  if (!isRecord(item) || Object.keys(item).length !== 1) {
    problems.add(pointer, `an action must be an object with exactly one action key (${ACTIONS.join(', ')})`);
    return undefined;
  }
  const [name, body] = Object.entries(item)[0]!;
  if (!(ACTIONS as readonly string[]).includes(name)) {
    problems.add(at(pointer, name), `unknown action '${name}'`, { atKey: true, hint: `actions: ${ACTIONS.join(', ')}` });
    return undefined;
  }
  const actionName = name as ActionName;
  const here = at(pointer, name);
  if (!isRecord(body)) {
    problems.add(here, `${name} must be an object`);
    return actionName;
  }
  const { required, optional } = INPUTS[actionName];
  const unknown = Object.keys(body).filter((key) => !required.includes(key) && !optional.includes(key));
  for (const key of unknown) problems.add(at(here, key), `${name} has no input '${key}'`, { atKey: true, hint: `inputs: ${[...required, ...optional].join(', ')}` });
  for (const key of required) if (!(key in body)) problems.add(here, `${name} needs '${key}'`);
  if (actionName === 'invokeSkill') {
    invokeSkill(body, here, scope, problems);
    return actionName;
  }
  for (const key of [...required, ...optional]) {
    if (!(key in body) || ['relation', 'customFields', 'requestApproval'].includes(key)) continue;
    text(body[key], at(here, key), scope, problems);
  }
  if (actionName === 'ensureWork') ensureWork(body, here, scope, problems);
  if (actionName === 'transition') transition(body, here, scope, problems);
  return actionName;
}

/** A string input: non-blank, at most 10 000 characters, its `$.` expressions readable here. */
function text(value: unknown, pointer: string, scope: Scope, problems: Problems): value is string {
  if (typeof value !== 'string') {
    problems.add(pointer, 'must be a string');
    return false;
  }
  if (value.trim().length === 0) problems.add(pointer, 'must not be empty');
  else if (value.length > MAX_TEXT) problems.add(pointer, `must be at most ${MAX_TEXT} characters`);
  const roots = scope.reaction ? [...scope.roots, 'invocation'] : scope.roots;
  for (const expression of expressionsIn(value)) {
    const problem = expressionProblem(expression, roots, scope.rootProblem);
    if (problem) problems.add(pointer, problem);
  }
  return true;
}

const isLiteral = (value: unknown): value is string => typeof value === 'string' && !value.includes('$.');

function ensureWork(body: Record<string, unknown>, pointer: string, scope: Scope, problems: Problems): void {
  if (isLiteral(body.type) && body.type.trim().length > 0 && !TYPE_KEY.test(body.type)) problems.add(at(pointer, 'type'), `type '${body.type}' must be a task type key`);
  if (typeof body.key === 'string' && body.key.trim().length > 0 && !WORK_KEY.test(body.key)) {
    problems.add(at(pointer, 'key'), `key must match ${WORK_KEY.source}`, { hint: 'letters, digits, _ . : / $ [ ] ! - and spaces, at most 200' });
  }
  if (isLiteral(body.priority) && body.priority.trim().length > 0 && !PRIORITIES.includes(body.priority)) {
    problems.add(at(pointer, 'priority'), `priority must be one of ${listed(PRIORITIES)}`);
  }
  if ('relation' in body) {
    const relation = body.relation;
    if (!isRecord(relation) || Object.keys(relation).length !== 1 || !RELATIONS.includes(Object.keys(relation)[0]!)) {
      problems.add(at(pointer, 'relation'), `relation must be an object with exactly one of ${listed(RELATIONS)}`);
    } else {
      const [kind, target] = Object.entries(relation)[0]!;
      text(target, at(pointer, 'relation', kind), scope, problems);
    }
  }
  if ('customFields' in body) {
    const fields = body.customFields;
    if (!isRecord(fields) || Object.keys(fields).length === 0 || Object.keys(fields).length > MAX_CUSTOM_FIELDS) {
      problems.add(at(pointer, 'customFields'), `customFields must be a non-empty object of at most ${MAX_CUSTOM_FIELDS} fields`);
    } else {
      for (const [name, value] of Object.entries(fields)) {
        if (!FIELD_NAME.test(name)) problems.add(at(pointer, 'customFields', name), `custom field name '${name}' must match ${FIELD_NAME.source}`, { atKey: true });
        text(value, at(pointer, 'customFields', name), scope, problems);
      }
    }
  }
  if ('requestApproval' in body) {
    const request = body.requestApproval;
    const here = at(pointer, 'requestApproval');
    if (!isRecord(request) || !('assignee' in request) || Object.keys(request).some((key) => key !== 'assignee' && key !== 'comment')) {
      problems.add(here, 'requestApproval must be an object {assignee, comment?}');
    } else {
      for (const key of ['assignee', 'comment']) if (key in request) text(request[key], at(here, key), scope, problems);
    }
  }
}

function transition(body: Record<string, unknown>, pointer: string, scope: Scope, problems: Problems): void {
  const status = body.status;
  const gated = body.task === undefined || (typeof body.task === 'string' && GATED_TASK.test(body.task.trim()));
  if (!gated || typeof status !== 'string' || status.trim().length === 0) return;
  if (!isLiteral(status)) {
    problems.add(at(pointer, 'status'), 'a transition of the gated task takes a literal status');
  } else if (body.task === undefined && scope.statuses !== undefined && !scope.statuses.has(status)) {
    problems.add(at(pointer, 'status'), `status '${status}' is not declared by this type's lifecycle`, { hint: `declared: ${[...scope.statuses.keys()].join(', ')}` });
  }
}

function invokeSkill(body: Record<string, unknown>, pointer: string, scope: Scope, problems: Problems): void {
  if (scope.reaction) problems.add(pointer, 'a reaction cannot invoke another skill', { hint: 'invoke the skills one after another from the outcome' });
  if ('skill' in body && !(typeof body.skill === 'string' && SKILL_REF.test(body.skill))) {
    problems.add(at(pointer, 'skill'), 'invokeSkill.skill must be a literal name or name@version');
  }
  if ('inputs' in body) {
    if (!isRecord(body.inputs)) problems.add(at(pointer, 'inputs'), 'invokeSkill.inputs must be an object');
    else skillInputs(body.inputs, at(pointer, 'inputs'), scope, problems);
  }
  if ('expect' in body) {
    const expect = body.expect;
    if (!isRecord(expect) || Object.keys(expect).length === 0) problems.add(at(pointer, 'expect'), 'invokeSkill.expect must be a non-empty object');
    else {
      for (const [name, value] of Object.entries(expect)) {
        const here = at(pointer, 'expect', name);
        if (!FIELD_NAME.test(name)) problems.add(here, `expect key '${name}' must match ${FIELD_NAME.source}`, { atKey: true });
        const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
        if (!scalar || (typeof value === 'string' && value.includes('$.'))) problems.add(here, 'an expected value is a literal scalar or null');
      }
    }
  }
  for (const reaction of ['onSuccess', 'onFailure']) {
    if (reaction in body) actions(body[reaction], at(pointer, reaction), { ...scope, reaction: true }, problems);
  }
}

/** Skill inputs: strings (templates), nested objects, numbers, booleans and null — no lists. */
function skillInputs(value: Record<string, unknown>, pointer: string, scope: Scope, problems: Problems): void {
  for (const [name, item] of Object.entries(value)) {
    const here = at(pointer, name);
    if (typeof item === 'string') text(item, here, scope, problems);
    else if (isRecord(item)) skillInputs(item, here, scope, problems);
    else if (Array.isArray(item)) problems.add(here, 'skill inputs hold no lists');
  }
}

/** completeTask of the gated task, or its transition into a terminal status. */
function closesGatedTask(name: ActionName, body: unknown, statuses: Statuses | undefined): boolean {
  if (!isRecord(body)) return false;
  const ofGatedTask = body.task === undefined || (typeof body.task === 'string' && GATED_TASK.test(body.task.trim()));
  if (!ofGatedTask) return false;
  if (name === 'completeTask') return true;
  if (name !== 'transition' || typeof body.status !== 'string') return false;
  const category = statuses?.get(body.status);
  return category === 'terminal_success' || category === 'terminal_cancelled';
}

const COMPLETION_ROOTS = ['task', 'spawnedBy'];
const AFTER_COMPLETION: ReadonlySet<string> = new Set(['ensureWork', 'comment']);

/** `completionSchema` of a task type (default `{}`: nothing after completion). */
export function completionProblems(value: unknown, pointer: string): DomainProblem[] {
  if (value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0)) return [];
  const problems = new Problems('invalid_completion_schema');
  if (!isRecord(value)) {
    problems.add(pointer, 'completionSchema must be an object {onComplete}');
    return problems.list;
  }
  const guard = guardProblems(value, pointer, 'completionSchema', 'invalid_completion_schema');
  if (guard.length > 0) return guard;
  problems.addAll(secretKeyProblems(value, pointer, 'a completion schema'));
  const unknown = Object.keys(value).filter((key) => key !== 'onComplete');
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `completionSchema: unknown keys ${listed(unknown)}`, { atKey: true });
  const onComplete = value.onComplete;
  const here = at(pointer, 'onComplete');
  if (!isRecord(onComplete) || !('actions' in onComplete) || Object.keys(onComplete).some((key) => key !== 'actions' && key !== 'when')) {
    problems.add(here, 'onComplete must be an object {actions, when?}');
    return problems.list;
  }
  if ('when' in onComplete) completionWhen(onComplete.when, at(here, 'when'), problems);
  const list = onComplete.actions;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ACTIONS) {
    problems.add(at(here, 'actions'), `onComplete.actions must be a non-empty list of at most ${MAX_ACTIONS} actions`);
    return problems.list;
  }
  const scope: Scope = { roots: COMPLETION_ROOTS, reaction: false, rootProblem: () => `a completion reads only ${listed([...COMPLETION_ROOTS].sort())}` };
  list.forEach((item, index) => {
    const place = at(here, 'actions', index);
    const name = isRecord(item) && Object.keys(item).length === 1 ? Object.keys(item)[0]! : undefined;
    if (name !== undefined && !AFTER_COMPLETION.has(name) && (ACTIONS as readonly string[]).includes(name)) {
      problems.add(at(place, name), `'${name}' is not available after completion`, { atKey: true, hint: 'after completion: ensureWork or comment' });
    } else action(item, place, scope, problems);
  });
  return problems.list;
}

function completionWhen(value: unknown, pointer: string, problems: Problems): void {
  if (!Array.isArray(value) || value.length === 0 || value.length > 8) {
    problems.add(pointer, 'onComplete.when must be a non-empty list of at most 8 expressions');
    return;
  }
  value.forEach((item, index) => {
    const expression = typeof item === 'string' ? wholeExpression(item) : undefined;
    if (expression === undefined || !COMPLETION_ROOTS.includes(expression.root) || expression.filter !== undefined) {
      problems.add(at(pointer, index), 'onComplete.when holds $.task… or $.spawnedBy… expressions without |truncate');
      return;
    }
    const problem = expressionProblem(expression, COMPLETION_ROOTS);
    if (problem) problems.add(at(pointer, index), problem);
  });
}
