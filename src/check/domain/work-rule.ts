/**
 * A work rule as the core normalises it (compat-core-validators.md §3, normalize_rule_spec): its key and
 * description, trigger, condition, interpretation and action, and the rules across them. The reads of the
 * package settings (§3.7) are the settings rules'.
 */
import { isRecord } from '../../json/guards.js';
import { guardProblems, secretKeyProblems, SMALL_DOCUMENT_BYTES } from './json-guard.js';
import { at, isInteger, listed, Problems, type DomainProblem } from './problems.js';
import { BASE_ROOTS, conditionProblems, hasPlaceholder, isWholePlaceholder, pathProblem, placeholderProblems } from './rule-condition.js';

const RULE_KEY = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const OBSERVATION_TYPE = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const OBSERVATION_SOURCE = /^[a-z0-9][a-z0-9._:/-]{0,127}$/;
const AGENT_KEY = /^[a-z0-9][a-z0-9-]{0,62}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const SKILL_PINNED = /^[a-z0-9][a-z0-9_.-]{0,126}@[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$/;
const TYPE_KEY = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const TRIGGER_KINDS = ['event', 'observation', 'schedule'];
const TRIGGER_FIELDS: Record<string, readonly string[]> = {
  observation: ['kind', 'type', 'source', 'agent', 'actorId'],
  event: ['kind', 'type'],
  schedule: ['kind', 'type', 'everySeconds'],
};
const ACTION_FIELDS = ['kind', 'taskType', 'dedupKeyTemplate', 'fields', 'forEach', 'where', 'acceptance', 'check', 'taskTypes', 'target'];
const ACTION_KINDS = ['ensure_work', 'update_work', 'cancel_work', 'complete_work', 'request_decision'];
const CREATING: ReadonlySet<string> = new Set(['ensure_work', 'request_decision']);
const CLOSING: ReadonlySet<string> = new Set(['cancel_work', 'complete_work']);
const FIELDS = ['title', 'description', 'priority', 'assignee', 'approver', 'approverRole', 'workspaceId', 'customFields', 'relations'];

/** Every problem of a work rule: its key at `/key`, the rest under `/spec`. */
export function workRuleProblems(key: string, spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_rule');
  if ('goalId' in spec) problems.add('/spec/goalId', 'a package names no goal', { atKey: true, hint: 'remove goalId: the work a rule files belongs to its workspace' });
  if (!RULE_KEY.test(key)) problems.add('/key', `the key of a rule must match ${RULE_KEY.source}`);
  if (typeof spec.description === 'string' && [...spec.description].length > 2000) problems.add('/spec/description', 'description has at most 2000 characters');
  const trigger = triggerProblems(spec.trigger, '/spec/trigger');
  problems.addAll(trigger);
  if (isRecord(spec.condition)) problems.addAll(documentProblems(spec.condition, '/spec/condition', 'condition', 'invalid_rule_condition', false));
  problems.addAll(conditionProblems(spec.condition, '/spec/condition', BASE_ROOTS));
  const interpreted = spec.interpretation !== undefined && spec.interpretation !== null;
  problems.addAll(interpretationProblems(spec.interpretation, '/spec/interpretation'));
  problems.addAll(actionProblems(spec.action, '/spec/action', interpreted));
  problems.addAll(crossProblems(spec, interpreted));
  return problems.list;
}

/**
 * The documents of a rule: an object within 16 KiB, no member named like a secret. Returns the guard's
 * problems (re-coded as the part's) and the secret names.
 */
function documentProblems(value: unknown, pointer: string, label: string, code: string, required: boolean): DomainProblem[] {
  if (value === undefined || value === null || typeof value === 'boolean') {
    return required && !(typeof value === 'boolean') ? [{ code, pointer, field: label, problem: `${label} must be an object` }] : [];
  }
  const json = JSON.stringify(value);
  const guard = guardProblems(value, pointer, label, code, SMALL_DOCUMENT_BYTES, json);
  return guard.length > 0 ? guard : secretKeyProblems(value, pointer, `a rule's ${label}`, json);
}

function triggerProblems(trigger: unknown, pointer: string): DomainProblem[] {
  const document = documentProblems(trigger, pointer, 'trigger', 'invalid_rule_trigger', true);
  if (!isRecord(trigger) || document.some((problem) => problem.code !== 'secret_material_rejected')) return document;
  const problems = new Problems('invalid_rule_trigger');
  problems.addAll(document);
  const kind = trigger.kind;
  if (typeof kind !== 'string' || !TRIGGER_KINDS.includes(kind)) {
    problems.add(at(pointer, 'kind'), `trigger.kind must be one of ${listed(TRIGGER_KINDS)}`);
    return problems.list;
  }
  const allowed = TRIGGER_FIELDS[kind]!;
  for (const name of Object.keys(trigger).filter((member) => !allowed.includes(member))) {
    problems.add(at(pointer, name), `${article(kind)} ${kind} trigger has no '${name}'`, { atKey: true, hint: `${article(kind)} ${kind} trigger has ${allowed.join(', ')}` });
  }
  const type = trigger.type;
  if (kind === 'observation') {
    if (typeof type !== 'string' || !OBSERVATION_TYPE.test(type)) problems.add(at(pointer, 'type'), `trigger.type must be an observation type matching ${OBSERVATION_TYPE.source}`);
    if (trigger.source !== undefined && trigger.source !== null && !(typeof trigger.source === 'string' && OBSERVATION_SOURCE.test(trigger.source))) {
      problems.add(at(pointer, 'source'), `trigger.source must match ${OBSERVATION_SOURCE.source}`);
    }
    if (trigger.agent !== undefined && trigger.agent !== null && !(typeof trigger.agent === 'string' && AGENT_KEY.test(trigger.agent))) {
      problems.add(at(pointer, 'agent'), 'trigger.agent must be the key of an agent');
    }
    if (trigger.actorId !== undefined && trigger.actorId !== null && !(typeof trigger.actorId === 'string' && UUID.test(trigger.actorId))) {
      problems.add(at(pointer, 'actorId'), 'trigger.actorId must be a principal id (a UUID)');
    }
  } else if (kind === 'event') {
    if (typeof type !== 'string' || !EVENT_TYPE.test(type)) problems.add(at(pointer, 'type'), 'trigger.type must be an event type such as task.completed');
    else if (type === 'observation.recorded') problems.add(at(pointer, 'type'), 'observations have their own trigger kind', { hint: 'kind: observation, type: <observation type>' });
    else if (/^(rule\.|work\.|skill\.invocation_)/.test(type)) problems.add(at(pointer, 'type'), 'a rule cannot be triggered by what rules do');
  } else {
    if (type !== 'interval') problems.add(at(pointer, 'type'), "a schedule trigger has type: interval");
    const every = trigger.everySeconds;
    if (!(isInteger(every) && every >= 60 && every <= 604_800)) problems.add(at(pointer, 'everySeconds'), 'everySeconds must be an integer from 60 to 604800');
  }
  return problems.list;
}

function interpretationProblems(interpretation: unknown, pointer: string): DomainProblem[] {
  const document = documentProblems(interpretation, pointer, 'interpretation', 'invalid_rule_interpretation', false);
  if (!isRecord(interpretation) || document.some((problem) => problem.code !== 'secret_material_rejected')) return document;
  const problems = new Problems('invalid_rule_interpretation');
  problems.addAll(document);
  for (const name of Object.keys(interpretation).filter((member) => member !== 'skill' && member !== 'inputs')) {
    problems.add(at(pointer, name), `an interpretation has no '${name}'`, { atKey: true, hint: 'an interpretation has skill and inputs' });
  }
  if (!(typeof interpretation.skill === 'string' && SKILL_PINNED.test(interpretation.skill))) {
    problems.add(at(pointer, 'skill'), 'interpretation.skill must pin a skill version: name@version');
  }
  const inputs = interpretation.inputs;
  if (inputs !== undefined && inputs !== null && !isRecord(inputs)) problems.add(at(pointer, 'inputs'), 'interpretation.inputs must be an object');
  else problems.addAll(placeholderProblems(inputs, at(pointer, 'inputs'), BASE_ROOTS, 'invalid_rule_interpretation'));
  return problems.list;
}

function actionProblems(action: unknown, pointer: string, interpreted: boolean): DomainProblem[] {
  const document = documentProblems(action, pointer, 'action', 'invalid_rule_action', true);
  if (!isRecord(action) || document.some((problem) => problem.code !== 'secret_material_rejected')) return document;
  const problems = new Problems('invalid_rule_action');
  problems.addAll(document);
  for (const name of Object.keys(action).filter((member) => !ACTION_FIELDS.includes(member))) {
    problems.add(at(pointer, name), `an action has no '${name}'`, { atKey: true, hint: `an action has ${ACTION_FIELDS.join(', ')}` });
  }
  const kind = action.kind;
  if (typeof kind !== 'string' || !ACTION_KINDS.includes(kind)) {
    problems.add(at(pointer, 'kind'), `action.kind must be one of ${listed(ACTION_KINDS)}`);
    return problems.list;
  }
  const has = (name: string) => action[name] !== undefined && action[name] !== null;
  const onTask = action.target === 'task';
  if (has('target')) {
    if (!CLOSING.has(kind)) problems.add(at(pointer, 'target'), 'target is only for cancel_work and complete_work');
    else if (action.target !== 'dedup' && action.target !== 'task') problems.add(at(pointer, 'target'), "target must be one of ['dedup', 'task']");
  }
  if (onTask && CLOSING.has(kind)) {
    for (const name of ['dedupKeyTemplate', 'forEach', 'where']) if (has(name)) problems.add(at(pointer, name), `${name} is not used with target: task`, { atKey: true });
    if (!has('taskTypes')) problems.add(pointer, 'an action with target: task needs taskTypes: the types it may close');
  }
  const roots = [...BASE_ROOTS, ...(interpreted ? ['skill'] : []), ...(has('forEach') ? ['item'] : [])];
  forEachAndWhere(action, pointer, interpreted, problems);
  taskTypes(action, pointer, kind, onTask, problems);
  if (!(onTask && CLOSING.has(kind))) {
    const template = action.dedupKeyTemplate;
    if (typeof template !== 'string' || template.trim().length === 0 || [...template].length > 200) {
      problems.add(at(pointer, 'dedupKeyTemplate'), 'dedupKeyTemplate must be a non-blank string of at most 200 characters', {
        hint: 'e.g. "claim-escalated:{{payload.ticketId}}": work with the same key is the same work',
      });
    }
  }
  fields(action, pointer, kind, problems);
  if (has('acceptance')) {
    if (!CREATING.has(kind)) problems.add(at(pointer, 'acceptance'), 'acceptance is only for ensure_work and request_decision');
    else if (typeof action.acceptance !== 'string' && !Array.isArray(action.acceptance)) problems.add(at(pointer, 'acceptance'), 'acceptance must be a template or a list of checks');
  }
  if (has('check')) {
    if (kind !== 'complete_work') problems.add(at(pointer, 'check'), 'check is only for complete_work');
    else if (typeof action.check !== 'string' || action.check.trim().length === 0) problems.add(at(pointer, 'check'), 'check must be a non-empty string: a template or a check key');
  }
  for (const name of ['taskType', 'dedupKeyTemplate', 'fields', 'acceptance', 'check']) {
    if (has(name)) problems.addAll(placeholderProblems(action[name], at(pointer, name), roots, 'invalid_rule_action'));
  }
  return problems.list;
}

function forEachAndWhere(action: Record<string, unknown>, pointer: string, interpreted: boolean, problems: Problems): void {
  const forEach = action.forEach;
  if (forEach !== undefined && forEach !== null) {
    const path = typeof forEach === 'string' && isWholePlaceholder(forEach) ? forEach.trim().slice(2, -2).trim() : forEach;
    const problem = pathProblem(path, [...BASE_ROOTS, ...(interpreted ? ['skill'] : [])]);
    if (problem) problems.add(at(pointer, 'forEach'), `forEach: ${problem}`);
  }
  const where = action.where;
  if (where === undefined || where === null) return;
  if (forEach === undefined || forEach === null) {
    problems.add(at(pointer, 'where'), 'action.where filters forEach items; forEach is missing');
    return;
  }
  const roots = [...BASE_ROOTS, ...(interpreted ? ['skill'] : []), 'item'];
  if (isRecord(where)) problems.addAll(documentProblems(where, at(pointer, 'where'), 'action.where', 'invalid_rule_condition', false));
  problems.addAll(conditionProblems(where, at(pointer, 'where'), roots));
}

function taskTypes(action: Record<string, unknown>, pointer: string, kind: string, onTask: boolean, problems: Problems): void {
  const list = action.taskTypes;
  const given = list !== undefined && list !== null;
  if (given) {
    if (kind !== 'ensure_work' && !(onTask && CLOSING.has(kind))) problems.add(at(pointer, 'taskTypes'), 'taskTypes is only for ensure_work or an action with target: task');
    else if (!Array.isArray(list) || list.length === 0 || list.length > 20) problems.add(at(pointer, 'taskTypes'), 'taskTypes must be a list of 1 to 20 task type keys');
    else {
      const seen = new Set<unknown>();
      list.forEach((key, index) => {
        if (typeof key !== 'string' || !TYPE_KEY.test(key)) problems.add(at(pointer, 'taskTypes', index), 'taskTypes holds task type keys');
        else if (seen.has(key)) problems.add(at(pointer, 'taskTypes', index), `'${key}' is listed twice`);
        seen.add(key);
      });
    }
  }
  const taskType = action.taskType;
  if (!CREATING.has(kind)) {
    if (taskType !== undefined && taskType !== null) problems.add(at(pointer, 'taskType'), `taskType is only for ensure_work and request_decision, not ${kind}`, { atKey: true });
    return;
  }
  if (typeof taskType !== 'string') {
    problems.add(at(pointer, 'taskType'), 'taskType must be a task type key or a {{…}} template');
  } else if (hasPlaceholder(taskType)) {
    if (!given) problems.add(at(pointer, 'taskType'), 'a templated taskType needs taskTypes: the types it may give');
  } else if (!TYPE_KEY.test(taskType)) {
    problems.add(at(pointer, 'taskType'), `taskType '${taskType}' must be a task type key`);
  } else if (given && Array.isArray(list) && !list.includes(taskType)) {
    problems.add(at(pointer, 'taskType'), `taskType '${taskType}' must be one of taskTypes`);
  }
}

function fields(action: Record<string, unknown>, pointer: string, kind: string, problems: Problems): void {
  const here = at(pointer, 'fields');
  const value = action.fields;
  if (!('fields' in action) || (isRecord(value) && Object.keys(value).length === 0)) {
    if (CREATING.has(kind)) problems.add(here, `${kind} needs fields with a non-blank title`);
    return;
  }
  if (!isRecord(value)) {
    problems.add(here, 'action.fields must be an object');
    return;
  }
  if (CLOSING.has(kind)) {
    problems.add(here, `${kind} takes no fields`, { atKey: true });
    return;
  }
  for (const name of Object.keys(value).filter((member) => !FIELDS.includes(member))) {
    problems.add(at(here, name), `action.fields has no '${name}'`, { atKey: true, hint: `fields: ${FIELDS.join(', ')}` });
  }
  const creating = CREATING.has(kind);
  for (const name of ['customFields', 'workspaceId']) {
    if (name in value && !creating) problems.add(at(here, name), `fields.${name} is only for ensure_work and request_decision`, { atKey: true });
  }
  if ('relations' in value && kind !== 'ensure_work') problems.add(at(here, 'relations'), 'fields.relations is only for ensure_work', { atKey: true });
  for (const name of ['title', 'description', 'priority', 'assignee', 'approver', 'approverRole', 'workspaceId']) {
    if (name in value && typeof value[name] !== 'string') problems.add(at(here, name), `fields.${name} must be a string template`);
  }
  if (typeof value.workspaceId === 'string' && value.workspaceId.trim().length === 0) problems.add(at(here, 'workspaceId'), 'fields.workspaceId must not be blank');
  if (creating && !(typeof value.title === 'string' && value.title.trim().length > 0)) problems.add(at(here, 'title'), `${kind} needs a non-blank title`);
  const deciders = ['approver', 'approverRole'].filter((name) => name in value);
  if (kind === 'request_decision' && deciders.length !== 1) problems.add(here, 'request_decision needs exactly one of approver and approverRole');
  if (kind !== 'request_decision') for (const name of deciders) problems.add(at(here, name), `fields.${name} is only for request_decision`, { atKey: true });
  if (creating && 'customFields' in value) customFields(value.customFields, at(here, 'customFields'), problems);
  if (kind === 'ensure_work' && 'relations' in value) relations(value.relations, at(here, 'relations'), problems);
}

function customFields(value: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(value) || Object.keys(value).length === 0 || Object.keys(value).length > 32) {
    problems.add(pointer, 'fields.customFields must be a non-empty object of at most 32 string templates');
    return;
  }
  for (const [name, template] of Object.entries(value)) {
    if (!FIELD_NAME.test(name)) problems.add(at(pointer, name), `custom field name '${name}' must match ${FIELD_NAME.source}`, { atKey: true });
    if (typeof template !== 'string') problems.add(at(pointer, name), 'a custom field is a string template');
  }
}

function relations(value: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(value) || Object.keys(value).length === 0 || Object.keys(value).some((key) => key !== 'spawnedBy' && key !== 'dependsOn')) {
    problems.add(pointer, 'fields.relations must be a non-empty object {spawnedBy?, dependsOn?}');
    return;
  }
  if ('spawnedBy' in value && typeof value.spawnedBy !== 'string') problems.add(at(pointer, 'spawnedBy'), 'relations.spawnedBy must be a template of a task id');
  const dependsOn = value.dependsOn;
  if ('dependsOn' in value && typeof dependsOn !== 'string') {
    if (!Array.isArray(dependsOn) || dependsOn.length === 0 || dependsOn.length > 50 || dependsOn.some((item) => typeof item !== 'string')) {
      problems.add(at(pointer, 'dependsOn'), 'relations.dependsOn must be a template or a list of 1 to 50 templates');
    }
  }
}

/** What needs two parts of the rule at once. */
function crossProblems(spec: Record<string, unknown>, interpreted: boolean): DomainProblem[] {
  const problems = new Problems('invalid_rule');
  const trigger = isRecord(spec.trigger) ? spec.trigger : {};
  const action = isRecord(spec.action) ? spec.action : {};
  if (trigger.kind === 'schedule' && ['ensure_work', 'request_decision', 'complete_work'].includes(action.kind as string) && !interpreted) {
    problems.add('/spec/interpretation', `a schedule trigger with ${String(action.kind)} needs an interpretation: a schedule carries no payload to act on`);
  }
  if (action.target === 'task' && CLOSING.has(action.kind as string)) {
    if (TRIGGER_KINDS.includes(trigger.kind as string) && trigger.kind !== 'observation') {
      problems.add('/spec/action/target', 'target: task needs an observation trigger: the task is the one the observation is bound to', { code: 'invalid_rule_action' });
    }
    const author = (trigger.agent !== undefined && trigger.agent !== null) || (trigger.actorId !== undefined && trigger.actorId !== null);
    if (trigger.kind === 'observation' && !author) {
      problems.add('/spec/trigger/agent', 'target: task needs an author filter: trigger.agent or trigger.actorId', { code: 'invalid_rule_trigger' });
    }
  }
  return problems.list;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
