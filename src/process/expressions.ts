/**
 * Which fields of a Process are CEL expressions, what type each must give, and in which environment it is
 * checked — as data (`PROCESS_FIELDS`), plus `processExpressions` that walks a process spec by that data.
 *
 * `PROCESS_FIELDS` maps a part of a process (a "shape": the spec, a stage, a step, a deadline, …) to its fields.
 * A field path uses `/` between names and `*` for any array item or mapping value; its target is
 *  - `cel(expected)` — the string there is one expression;
 *  - `celMap(expected)` — every value of the mapping there is an expression (`set`, `input`, `facts`, …);
 *  - `celOrList()` — a string expression, or a list of them (a memory `where` value);
 *  - another shape's name — the value there is of that shape (a list of steps is `blocks`).
 * Strings of a `durationOrCel` or a deadline are ISO durations, not expressions: only their `at` / `expr` are.
 *
 * Environment: every expression of a process sees the whole profile (data, event, step, task, stage,
 * milestone, instance, settings, cal). Two things narrow it: `output.as` / `export.as` see `step.result` typed
 * by the step itself (a human step's form schema, a decision table's outputs), and the `do` of a
 * `try.catch[]` clause sees the error under its `as` name — which may shadow a built-in name, even `settings`.
 */
import type { Profile } from '../cel/environment.js';
import type { Expected } from '../cel/check.js';

export type { Expected };
import { forEachAt, forEachEntry, forEachItem } from '../json/walk.js';
import { SIMPLE_TYPE_SCHEMAS, type JsonSchema } from '../cel/types.js';
import { isRecord } from '../json/guards.js';


export type FieldTarget =
  /** `typedBy`: what the expression must give depends on a sibling field (a decision input's `type`). */
  | { cel: Expected; typedBy?: { field: string; types: Readonly<Record<string, Expected>> } }
  | { celMap: Expected; stepResult?: true }
  | { celOrList: Expected }
  | { shape: ShapeName; bindsCatchAs?: true };

const cel = (expected?: Expected): FieldTarget => ({ cel: expected });
const celMap = (expected?: Expected): FieldTarget => ({ celMap: expected });
const BOOL = cel('bool');
const STRING = cel('string');
const POINT_IN_TIME = cel(['timestamp', 'duration']);
const WORKING_AMOUNT = cel('int');
/** A decision table input's `type` → what its `expr` gives. */
const DECISION_INPUT: FieldTarget = {
  cel: undefined,
  typedBy: { field: 'type', types: { string: 'string', number: ['int', 'double'], boolean: 'bool', date: 'string', timestamp: 'timestamp' } },
};

export type ShapeName =
  | 'spec' | 'start' | 'correlate' | 'onEvent' | 'trigger' | 'decisionInput' | 'memoryEntity' | 'stage' | 'timer' | 'blocks' | 'step'
  | 'human' | 'approve' | 'call' | 'recall' | 'remember' | 'listen' | 'try' | 'escalation' | 'error' | 'context'
  | 'assignChain' | 'due' | 'durationOrCel';

export const PROCESS_FIELDS: Readonly<Record<ShapeName, Readonly<Record<string, FieldTarget>>>> = {
  spec: {
    owner: { shape: 'assignChain' },
    due: { shape: 'due' },
    start: { shape: 'start' },
    'correlate/*': { shape: 'correlate' },
    'onEvent/*': { shape: 'onEvent' },
    'timers/*': { shape: 'timer' },
    'decisions/*/inputs/*': { shape: 'decisionInput' },
    'memory/case/key': STRING,
    'memory/case/title': STRING,
    'memory/facts': celMap(),
    'memory/entities/*': { shape: 'memoryEntity' },
    'stages/*': { shape: 'stage' },
    'retrospective/when': BOOL,
  },
  start: { on: { shape: 'trigger' }, key: STRING, set: celMap() },
  correlate: { on: { shape: 'trigger' }, key: STRING, set: celMap(), do: { shape: 'blocks' } },
  onEvent: { on: { shape: 'trigger' }, do: { shape: 'blocks' } },
  trigger: { where: BOOL },
  decisionInput: { expr: DECISION_INPUT },
  // `many: true` makes the key a list: one entity per element.
  memoryEntity: { key: cel(['string', 'list']), name: STRING, when: BOOL },
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
    onCompensate: { shape: 'blocks' },
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
    'anchors/*/key': STRING,
    query: STRING,
    'where/*/value': { celOrList: undefined },
    due: { shape: 'due' },
    onTimeout: { shape: 'blocks' },
  },
  remember: {
    facts: celMap(),
    'entity/key': STRING,
    'entity/name': STRING,
    'entity/text': STRING,
    'entity/links/*/key': STRING,
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
  context: { 'anchors/*/key': STRING },
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
  /** For `output.as` / `export.as`: the schema of `step.result` (undefined when the step gives no typed result). */
  stepResult?: JsonSchema;
  /** Names bound by enclosing `catch … as: <name>` clauses, innermost last. */
  catchNames: readonly string[];
}

/** RFC 7807 problem details, the value of an error bound by `catch … as`. Extensions are allowed. */
export const PROCESS_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
  },
  additionalProperties: true,
};

/** The profile every expression of a process starts from: its data, stage and milestone ids, the package settings. */
export function processProfile(spec: unknown, settings?: JsonSchema): Profile {
  const s = isRecord(spec) ? spec : {};
  const stages = Array.isArray(s.stages) ? s.stages.filter(isRecord) : [];
  const ids = (items: unknown[]) => items.filter(isRecord).map((item) => item.id).filter((id): id is string => typeof id === 'string');
  const profile: Profile = {
    kind: 'process',
    stages: ids(stages),
    milestones: ids(stages.flatMap((stage) => (Array.isArray(stage.milestones) ? stage.milestones : []))),
  };
  if (isRecord(s.data)) profile.data = s.data;
  if (settings !== undefined) profile.settings = settings;
  return profile;
}

/** The profile of one expression: `step.result` typed for output mappings, catch names bound. */
export function expressionProfile(base: Profile, expression: ProcessExpression): Profile {
  if (expression.stepResult === undefined && expression.catchNames.length === 0) return base;
  const profile: Profile = { ...base };
  if (expression.stepResult !== undefined) profile.step = { result: expression.stepResult };
  if (expression.catchNames.length > 0) {
    profile.extraVariables = { ...base.extraVariables, ...Object.fromEntries(expression.catchNames.map((name) => [name, PROCESS_ERROR_SCHEMA])) };
  }
  return profile;
}

/** Every expression of a process spec, in document order. Malformed parts are skipped (stage 1 reports them). */
export function processExpressions(spec: unknown, pointer = '/spec'): ProcessExpression[] {
  const found: ProcessExpression[] = [];
  const decisions = isRecord(spec) && Array.isArray(spec.decisions) ? spec.decisions.filter(isRecord) : [];
  const walker = new Walker(found, decisions);
  walker.shape('spec', spec, pointer, []);
  return found;
}

class Walker {
  constructor(
    private readonly found: ProcessExpression[],
    private readonly decisions: readonly Record<string, unknown>[],
  ) {}

  shape(name: ShapeName, value: unknown, pointer: string, catchNames: readonly string[], stepResult?: JsonSchema): void {
    if (!isRecord(value) && !Array.isArray(value)) return;
    const result = name === 'step' && isRecord(value) ? this.stepResult(value) : stepResult;
    for (const [path, target] of COMPILED[name]) {
      forEachAt(value, path, pointer, (found, at) => this.target(target, found, at, catchNames, result, value));
    }
  }

  private target(target: FieldTarget, value: unknown, pointer: string, catchNames: readonly string[], stepResult: JsonSchema | undefined, owner: unknown): void {
    if ('shape' in target) {
      const names = target.bindsCatchAs === true ? [...catchNames, ...catchName(owner, pointer)] : catchNames;
      this.shape(target.shape, value, pointer, names, stepResult);
    } else if ('cel' in target) {
      const sibling = target.typedBy !== undefined && isRecord(owner) ? owner[target.typedBy.field] : undefined;
      const expected = typeof sibling === 'string' ? target.typedBy?.types[sibling] : target.cel;
      this.add(value, pointer, expected, catchNames);
    } else if ('celMap' in target) {
      const result = target.stepResult === true ? stepResult : undefined;
      forEachEntry(value, pointer, (item, at) => this.add(item, at, target.celMap, catchNames, result));
    } else if (Array.isArray(value)) {
      forEachItem(value, pointer, (item, at) => this.add(item, at, target.celOrList, catchNames));
    } else {
      this.add(value, pointer, target.celOrList, catchNames);
    }
  }

  private add(value: unknown, pointer: string, expected: Expected, catchNames: readonly string[], stepResult?: JsonSchema): void {
    if (typeof value !== 'string') return;
    const expression: ProcessExpression = { pointer, source: value, expected, catchNames };
    if (stepResult !== undefined) expression.stepResult = stepResult;
    this.found.push(expression);
  }

  /** What `step.result` holds after the step: the form of a human step, the outputs of a decision table. */
  private stepResult(step: Record<string, unknown>): JsonSchema | undefined {
    if (isRecord(step.human) && isRecord(step.human.form) && isRecord(step.human.form.schema)) return step.human.form.schema;
    if (isRecord(step.decide) && typeof step.decide.table === 'string') {
      const table = this.decisions.find((d) => d.id === (step.decide as Record<string, unknown>).table);
      return table === undefined ? undefined : decisionResultSchema(table);
    }
    return undefined;
  }
}

/** A decision table gives its outputs by id; a `collect` table gives a list of such rows. */
function decisionResultSchema(table: Record<string, unknown>): JsonSchema | undefined {
  if (!Array.isArray(table.outputs)) return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const output of table.outputs.filter(isRecord)) {
    if (typeof output.id === 'string') properties[output.id] = SIMPLE_TYPE_SCHEMAS[String(output.type)] ?? {};
  }
  const row: JsonSchema = { type: 'object', properties };
  return table.hitPolicy === 'collect' ? { type: 'array', items: row } : row;
}

/** The `as` of the catch clause that owns `…/catch/<i>/do`. */
function catchName(tryBlock: unknown, pointer: string): string[] {
  const index = Number(/\/catch\/(\d+)\/do$/.exec(pointer)?.[1]);
  const clause = isRecord(tryBlock) && Array.isArray(tryBlock.catch) ? tryBlock.catch[index] : undefined;
  return isRecord(clause) && typeof clause.as === 'string' ? [clause.as] : [];
}
