/**
 * Which fields of a Process are CEL expressions, what each must give, and in which environment it is checked —
 * as the core compiles them (compat-core-validators.md §2.6) — as data (`PROCESS_FIELDS`), plus
 * `processExpressions` that walks a process spec by that data.
 *
 * `PROCESS_FIELDS` maps a part of a process (a "shape": the spec, a stage, a step, a deadline, …) to its fields.
 * A field path uses `/` between names and `*` for any array item or mapping value; its target is
 *  - `cel(expected)` — the string there is one expression;
 *  - `celMap(expected)` — every value of the mapping there is an expression (`set`, `input`, `facts`, …);
 *  - `celOrList()` — a string expression, or a list of them (a recall `where` value);
 *  - another shape's name — the value there is of that shape (a list of steps is `blocks`).
 * Strings of a `durationOrCel` or a deadline are ISO durations, not expressions: only their `at` / `expr` are.
 *
 * Environment: every expression of a process sees the whole profile (data, event, step, task, stage,
 * milestone, instance, settings, cal). Three things narrow it: `output.as` / `export.as` see `step.result` and
 * `task.customFields` typed by the step itself (`ProcessExpression.step`), the `do` of a `try.catch[]` clause sees
 * the error under its `as` name — which may shadow a built-in name, even `settings` — and an `onCompensate` block
 * sees `compensated`, the step it compensates.
 */
import type { Profile } from '../cel/environment.js';
import type { CelTypeName, Expected } from '../cel/check.js';

export type { Expected };
import { forEachAt, forEachEntry, forEachItem } from '../json/walk.js';
import { SIMPLE_TYPE_SCHEMAS, type JsonSchema } from '../cel/types.js';
import { isRecord } from '../json/guards.js';


export type FieldTarget =
  /** `typedBy`: what the expression must give depends on a sibling field (`many: true`, a `where` op). */
  | { cel: Expected; typedBy?: { field: string; types: Readonly<Record<string, Expected>> } }
  | { celMap: Expected; stepResult?: true }
  | { celOrList: Expected; typedBy?: { field: string; types: Readonly<Record<string, Expected>> } }
  | { shape: ShapeName; bindsCatchAs?: true; compensates?: true };

const cel = (expected?: Expected): FieldTarget => ({ cel: expected });
const celMap = (expected?: Expected): FieldTarget => ({ celMap: expected });
const BOOL = cel('bool');
const STRING = cel('string');
/** A key: what an instance, a memory case or an entity is found by. */
const KEY_TYPES: readonly CelTypeName[] = ['string', 'int', 'uint'];
const KEY = cel(KEY_TYPES);
const POINT_IN_TIME = cel(['timestamp', 'duration']);
const WORKING_AMOUNT = cel(['int', 'uint']);
/** `many: true` makes the key a list: one entity per element. */
const ENTITY_KEY: FieldTarget = { cel: KEY_TYPES, typedBy: { field: 'many', types: { true: 'list', false: KEY_TYPES } } };
/** A recall filter's value by its op: a list for `in`, text for `prefix`, a truth for `exists`. */
const WHERE_VALUE: FieldTarget = { celOrList: undefined, typedBy: { field: 'op', types: { in: 'list', prefix: 'string', exists: 'bool' } } };

export type ShapeName =
  | 'spec' | 'start' | 'correlate' | 'onEvent' | 'trigger' | 'decisionInput' | 'memoryEntity' | 'stage' | 'timer' | 'blocks' | 'step'
  | 'human' | 'approve' | 'call' | 'recall' | 'remember' | 'listen' | 'try' | 'escalation' | 'error' | 'context'
  | 'assignChain' | 'due' | 'durationOrCel' | 'recallWhere';

export const PROCESS_FIELDS: Readonly<Record<ShapeName, Readonly<Record<string, FieldTarget>>>> = {
  spec: {
    owner: { shape: 'assignChain' },
    due: { shape: 'due' },
    start: { shape: 'start' },
    'correlate/*': { shape: 'correlate' },
    'onEvent/*': { shape: 'onEvent' },
    'timers/*': { shape: 'timer' },
    'decisions/*/inputs/*': { shape: 'decisionInput' },
    'memory/case/key': KEY,
    'memory/case/title': STRING,
    'memory/facts': celMap(),
    'memory/entities/*': { shape: 'memoryEntity' },
    'stages/*': { shape: 'stage' },
    'retrospective/when': BOOL,
    'retrospective/assign': { shape: 'assignChain' },
  },
  start: { on: { shape: 'trigger' }, key: KEY, set: celMap() },
  correlate: { on: { shape: 'trigger' }, key: KEY, set: celMap(), do: { shape: 'blocks' } },
  onEvent: { on: { shape: 'trigger' }, do: { shape: 'blocks' } },
  trigger: { where: BOOL },
  decisionInput: { expr: cel() },
  memoryEntity: { key: ENTITY_KEY, name: cel(), when: BOOL },
  stage: {
    entry: BOOL,
    exit: BOOL,
    steps: { shape: 'blocks' },
    discretionary: { shape: 'blocks' },
    'milestones/*/when': BOOL,
    'timers/*': { shape: 'timer' },
  },
  timer: { at: { shape: 'durationOrCel' }, do: { shape: 'blocks' } },
  blocks: { '*': { shape: 'step' } },
  step: {
    when: BOOL,
    'input/from': cel(),
    'output/as': { celMap: undefined, stepResult: true },
    'export/as': { celMap: undefined, stepResult: true },
    onCompensate: { shape: 'blocks', compensates: true },
    human: { shape: 'human' },
    approve: { shape: 'approve' },
    call: { shape: 'call' },
    'decide/input': celMap(),
    recall: { shape: 'recall' },
    remember: { shape: 'remember' },
    listen: { shape: 'listen' },
    wait: { shape: 'durationOrCel' },
    set: celMap(),
    raise: { shape: 'error' },
    'fork/branches/*/do': { shape: 'blocks' },
    try: { shape: 'try' },
    do: { shape: 'blocks' },
    'suspend/reason': STRING,
    'resume/reason': STRING,
  },
  human: {
    title: STRING,
    customFields: celMap(),
    assign: { shape: 'assignChain' },
    due: { shape: 'due' },
    'escalations/*': { shape: 'escalation' },
    context: { shape: 'context' },
  },
  approve: {
    approvers: { shape: 'assignChain' },
    separationOfDuties: cel('list'),
    due: { shape: 'due' },
    'escalations/*': { shape: 'escalation' },
    context: { shape: 'context' },
  },
  call: { input: celMap(), timeout: { shape: 'durationOrCel' }, due: { shape: 'due' }, context: { shape: 'context' } },
  recall: {
    'anchors/*/key': KEY,
    query: STRING,
    'where/*': { shape: 'recallWhere' },
    due: { shape: 'due' },
    onTimeout: { shape: 'blocks' },
  },
  remember: {
    facts: celMap(),
    'entity/key': KEY,
    'entity/name': STRING,
    'entity/text': STRING,
    'entity/links/*/key': KEY,
  },
  listen: {
    'any/*/on': { shape: 'trigger' },
    'any/*/do': { shape: 'blocks' },
    timeout: { shape: 'durationOrCel' },
    due: { shape: 'due' },
    onTimeout: { shape: 'blocks' },
  },
  try: { do: { shape: 'blocks' }, 'catch/*/do': { shape: 'blocks', bindsCatchAs: true } },
  escalation: { after: { shape: 'durationOrCel' }, to: { shape: 'assignChain' }, error: { shape: 'error' } },
  error: { detail: STRING },
  context: { 'anchors/*/key': KEY },
  recallWhere: { value: WHERE_VALUE },
  assignChain: { '*/expr': STRING },
  due: {
    at: POINT_IN_TIME,
    'workdays/expr': WORKING_AMOUNT,
    'workhours/expr': WORKING_AMOUNT,
    'warnBefore/workdays/expr': WORKING_AMOUNT,
    'warnBefore/workhours/expr': WORKING_AMOUNT,
  },
  durationOrCel: { at: POINT_IN_TIME },
};

/** The tables with their paths split once: walking a process visits every step. */
const COMPILED = {} as Record<ShapeName, readonly (readonly [readonly string[], FieldTarget])[]>;
for (const [shape, fields] of Object.entries(PROCESS_FIELDS)) {
  COMPILED[shape as ShapeName] = Object.entries(fields).map(([path, target]) => [path.split('/'), target] as const);
}

/** One expression found in a process. */
export interface ProcessExpression {
  /** JSON Pointer of the string in the document (`/spec/stages/0/steps/1/when`). */
  pointer: string;
  source: string;
  /** What the field needs (pass as `checkExpression(…, {expected})`). */
  expected: Expected;
  /** For `output.as` / `export.as`: the step whose result and task they map. */
  step?: Record<string, unknown>;
  /** Inside an `onCompensate` block: the step it compensates. */
  compensated?: Record<string, unknown>;
  /** Names bound by enclosing `catch … as: <name>` clauses, innermost last. */
  catchNames: readonly string[];
}

/** The error bound by `catch … as`: its type, HTTP-like status and detail, each null when the error has none. */
export const PROCESS_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { type: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } },
};

/**
 * The profile every expression of a process starts from: its data, stage ids, whether it names a calendar, and
 * the package settings (`settingsPackage`: the package the process belongs to, for messages about its settings).
 */
export function processProfile(spec: unknown, settings?: JsonSchema, settingsPackage?: string): Profile {
  const s = isRecord(spec) ? spec : {};
  const stages = Array.isArray(s.stages) ? s.stages.filter(isRecord) : [];
  const profile: Profile = {
    kind: 'process',
    stages: stages.map((stage) => stage.id).filter((id): id is string => typeof id === 'string'),
  };
  if (typeof s.calendar === 'string') profile.calendar = true;
  if (isRecord(s.data)) profile.data = s.data;
  if (settings !== undefined) profile.settings = settings;
  if (settingsPackage !== undefined) profile.settingsPackage = settingsPackage;
  return profile;
}

/** What the rules know of the objects a step names: the output schema of a skill, the fields of a task type. */
export interface StepCatalog {
  /** The output schema of the skill `name@version` (its contract's outputs, else its outputSchema). */
  skillOutput(skill: string): JsonSchema | undefined;
  /** The `fieldSchema` of a task type. */
  taskFields(taskType: string): JsonSchema | undefined;
}

const NO_CATALOG: StepCatalog = { skillOutput: () => undefined, taskFields: () => undefined };

/** What a step gives its output mappings: `step.result` and `task.customFields`, typed where the core types them. */
export interface StepResult {
  result?: JsonSchema;
  customFields?: JsonSchema;
}

const isObjectSchema = (schema: unknown): schema is Record<string, unknown> => isRecord(schema) && schema.type === 'object';

/**
 * The result of a step as its `output.as` / `export.as` see it: a human step's form (else its task type's
 * fields), a skill's output, a decision table's outputs, recall's nodes and edges; anything else untyped.
 * `task.customFields` is the task type's fields for human and approve steps that name one.
 */
export function stepResultOf(step: Record<string, unknown>, decisions: readonly Record<string, unknown>[], catalog: StepCatalog = NO_CATALOG): StepResult {
  const out: StepResult = {};
  const human = isRecord(step.human) ? step.human : undefined;
  const approve = isRecord(step.approve) ? step.approve : undefined;
  const taskType = (human ?? approve)?.taskType;
  const fields = typeof taskType === 'string' ? catalog.taskFields(taskType) : undefined;
  if (isObjectSchema(fields)) out.customFields = fields;
  if (human !== undefined) {
    const form = isRecord(human.form) ? human.form.schema : undefined;
    const result = isObjectSchema(form) ? form : fields;
    if (isObjectSchema(result)) out.result = result;
  } else if (isRecord(step.call) && typeof step.call.skill === 'string') {
    const output = catalog.skillOutput(step.call.skill);
    if (isObjectSchema(output)) out.result = output;
  } else if (isRecord(step.decide) && typeof step.decide.table === 'string') {
    const table = decisions.find((d) => d.id === (step.decide as Record<string, unknown>).table);
    if (table !== undefined) out.result = decisionResultSchema(table);
  } else if (isRecord(step.recall)) {
    out.result = RECALL_RESULT;
  }
  return out;
}

const RECALL_RESULT: JsonSchema = {
  type: 'object',
  required: ['truncated'],
  properties: { nodes: { type: 'array' }, edges: { type: 'array' }, truncated: { type: 'boolean' } },
};

/**
 * A decision table gives its outputs by id. A `collect` table gives `{items: [rows]}` in the core, a list of rows
 * in the scenario engine: until they agree its result is untyped, so neither is called wrong.
 */
function decisionResultSchema(table: Record<string, unknown>): JsonSchema {
  if (table.hitPolicy === 'collect') return {};
  const properties: Record<string, JsonSchema> = {};
  for (const output of Array.isArray(table.outputs) ? table.outputs.filter(isRecord) : []) {
    if (typeof output.id === 'string') properties[output.id] = SIMPLE_TYPE_SCHEMAS[String(output.type)] ?? {};
  }
  return { type: 'object', properties };
}

/**
 * The profile of one expression: `step.result` and `task.customFields` typed for output mappings, catch names
 * bound, `compensated` inside compensation. `results` gives a step's result (see `stepResultOf`).
 */
export function expressionProfile(base: Profile, expression: ProcessExpression, results: (step: Record<string, unknown>) => StepResult): Profile {
  if (expression.step === undefined && expression.catchNames.length === 0 && expression.compensated === undefined) return base;
  const profile: Profile = { ...base };
  if (expression.step !== undefined) profile.step = results(expression.step);
  if (expression.compensated !== undefined) profile.compensated = { ...optional('result', results(expression.compensated).result) };
  if (expression.catchNames.length > 0) {
    profile.extraVariables = { ...base.extraVariables, ...Object.fromEntries(expression.catchNames.map((name) => [name, PROCESS_ERROR_SCHEMA])) };
  }
  return profile;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Every expression of a process spec, in document order. Malformed parts are skipped (stage 1 reports them). */
export function processExpressions(spec: unknown, pointer = '/spec'): ProcessExpression[] {
  const found: ProcessExpression[] = [];
  new Walker(found).shape('spec', spec, pointer, {});
  return found;
}

/** What encloses the part being walked: catch names, the step being compensated, the step of a mapping. */
interface Scope {
  catchNames?: readonly string[];
  compensated?: Record<string, unknown>;
  step?: Record<string, unknown>;
}

class Walker {
  constructor(private readonly found: ProcessExpression[]) {}

  shape(name: ShapeName, value: unknown, pointer: string, scope: Scope): void {
    if (!isRecord(value) && !Array.isArray(value)) return;
    const inner = name === 'step' && isRecord(value) ? { ...scope, step: value } : scope;
    for (const [path, target] of COMPILED[name]) {
      forEachAt(value, path, pointer, (found, at) => this.target(target, found, at, inner, value));
    }
  }

  private target(target: FieldTarget, value: unknown, pointer: string, scope: Scope, owner: unknown): void {
    if ('shape' in target) {
      let inner = scope;
      if (target.bindsCatchAs === true) inner = { ...scope, catchNames: [...(scope.catchNames ?? []), ...catchName(owner, pointer)] };
      if (target.compensates === true && isRecord(owner)) inner = { ...scope, compensated: owner };
      this.shape(target.shape, value, pointer, inner);
    } else if ('cel' in target) {
      this.add(value, pointer, typedBy(target, owner) ?? target.cel, scope, false);
    } else if ('celMap' in target) {
      forEachEntry(value, pointer, (item, at) => this.add(item, at, target.celMap, scope, target.stepResult === true));
    } else if (Array.isArray(value)) {
      // Each item of a list value stands alone: it may be anything.
      forEachItem(value, pointer, (item, at) => this.add(item, at, undefined, scope, false));
    } else {
      this.add(value, pointer, typedBy(target, owner) ?? target.celOrList, scope, false);
    }
  }

  private add(value: unknown, pointer: string, expected: Expected, scope: Scope, mapsStep: boolean): void {
    if (typeof value !== 'string') return;
    const expression: ProcessExpression = { pointer, source: value, expected, catchNames: scope.catchNames ?? [] };
    if (mapsStep && scope.step !== undefined) expression.step = scope.step;
    if (scope.compensated !== undefined) expression.compensated = scope.compensated;
    this.found.push(expression);
  }
}

/** What a `typedBy` target needs, by its sibling's value (`many: true` → `'true'`). */
function typedBy(target: { typedBy?: { field: string; types: Readonly<Record<string, Expected>> } }, owner: unknown): Expected | undefined {
  if (target.typedBy === undefined || !isRecord(owner)) return undefined;
  const sibling = owner[target.typedBy.field];
  if (typeof sibling !== 'string' && typeof sibling !== 'boolean') return undefined;
  return Object.hasOwn(target.typedBy.types, String(sibling)) ? target.typedBy.types[String(sibling)] : undefined;
}

/** The `as` of the catch clause that owns `…/catch/<i>/do`. */
function catchName(tryBlock: unknown, pointer: string): string[] {
  const index = Number(/\/catch\/(\d+)\/do$/.exec(pointer)?.[1]);
  const clause = isRecord(tryBlock) && Array.isArray(tryBlock.catch) ? tryBlock.catch[index] : undefined;
  return isRecord(clause) && typeof clause.as === 'string' ? [clause.as] : [];
}
