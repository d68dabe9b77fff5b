/**
 * The typed model of a Process, parsed once per object and read by everything that reasons about processes:
 * the check rules, CEL typing, reachability and the package-test engine. The grammar of a process (which keys
 * hold steps, stages, timers, handlers) lives here and nowhere else.
 *
 * The model is built from any spec without throwing: a part that is not the shape the grammar expects (stage 1
 * reports it) is left out, never guessed. Each part keeps its JSON Pointer and its mapping as written (`node`),
 * so a finding can point at it and a consumer can read a field the model does not type.
 */
import { childPointer } from '../json/pointer.js';
import { isRecord } from '../json/guards.js';

export const STEP_KINDS = [
  'human', 'approve', 'call', 'decide', 'recall', 'remember', 'listen', 'wait', 'set', 'raise', 'compensate', 'fork', 'try',
  'do', 'suspend', 'resume', 'complete',
] as const;

export type StepKind = (typeof STEP_KINDS)[number];

/** The step kinds that may carry a `due` deadline (and so an SLA). */
export const STEP_KINDS_WITH_DUE = ['human', 'approve', 'call', 'recall', 'listen'] as const;

type Raw = Readonly<Record<string, unknown>>;
/** A mapping of names to CEL expressions (`set`, `input`, `facts`, …). */
export type CelMap = Readonly<Record<string, unknown>>;
/** An assign chain: `[{principal} | {role} | {agent} | {expr}, …]`. */
export type AssignChain = readonly Raw[];

export interface Trigger {
  event?: string;
  observation?: string;
  source?: string;
  where?: string;
}

/** What each step kind holds under its key, as the reference's processStep.<kind> describes it. */
export interface StepBodies {
  human: { taskType?: string; title?: string; customFields?: CelMap; form?: { schema?: unknown; uischema?: unknown }; assign?: AssignChain; due?: unknown; escalations?: readonly Raw[]; context?: Raw };
  approve: { taskType?: string; approvers?: AssignChain; mode?: string; quorum?: unknown; earlyDecision?: boolean; separationOfDuties?: string; due?: unknown; onDue?: string; escalations?: readonly Raw[]; context?: Raw };
  call: { skill?: string; agent?: string; process?: string; input?: CelMap; timeout?: unknown; due?: unknown; context?: Raw };
  decide: { table?: string; input?: CelMap };
  recall: { anchors?: readonly Raw[]; query?: string; kinds?: readonly unknown[]; where?: unknown; limit?: number; timeout?: string; due?: unknown; onTimeout?: readonly unknown[] };
  remember: { facts?: CelMap; entity?: { kind?: string; key?: string; name?: string; text?: string; links?: readonly Raw[] } };
  listen: { any?: readonly Raw[]; timeout?: unknown; due?: unknown; onTimeout?: readonly unknown[] };
  /** A duration, or `{at}`. */
  wait: unknown;
  set: CelMap;
  raise: { type?: string; status?: number; detail?: string };
  /** `all`, or element ids. */
  compensate: unknown;
  fork: { mode?: string; branches?: readonly Raw[] };
  try: { do?: readonly unknown[]; retry?: Raw; catch?: readonly Raw[] };
  do: readonly unknown[];
  suspend: { reason?: string };
  resume: { reason?: string };
  complete: { outcome?: string };
}

/** Where a block of steps sits, relative to what holds it. */
export type BlockRole =
  | 'stage' | 'discretionary' | 'timer' | 'onEvent' | 'correlate'
  | 'do' | 'onCompensate' | 'try' | 'catch' | 'branch' | 'listen' | 'onTimeout';

export interface StepOf<K extends StepKind> {
  kind: K;
  /** The step id ('' when the step has none: stage 1 reports it). */
  id: string;
  pointer: string;
  node: Raw;
  /** `node[kind]`. */
  body: StepBodies[K];
  when?: string;
  /** The block the step stands in, and its index there. */
  block: Block;
  index: number;
  /** The stage whose work the step is (undefined for process timers, handlers and correlations). */
  stage?: string;
  /** The blocks the step holds, outer before inner. */
  blocks: Block[];
}

export type Step = { [K in StepKind]: StepOf<K> }[StepKind];

export interface Block {
  role: BlockRole;
  pointer: string;
  /** The array as written (items that are not steps included: indexes match the file). */
  items: readonly unknown[];
  /** Its items that are steps of exactly one kind. */
  steps: Step[];
  /** For `catch`, `branch` and `listen` blocks: the mapping that holds the block (the clause, the branch, the option). */
  holder?: Raw;
}

export interface Milestone {
  id: string;
  pointer: string;
  when?: string;
}

export interface Timer {
  id: string;
  pointer: string;
  node: Raw;
  at: unknown;
  interrupting: boolean;
  do: Block;
  /** The stage it is a boundary timer of; undefined for a process timer. */
  stage?: string;
}

export interface Stage {
  id: string;
  pointer: string;
  node: Raw;
  entry?: string;
  exit?: string;
  repeatable: boolean;
  steps: Block;
  discretionary?: Block;
  milestones: Milestone[];
  timers: Timer[];
}

/** A `correlate[]` or `onEvent[]` entry. */
export interface Handler {
  pointer: string;
  node: Raw;
  on?: Trigger;
  key?: string;
  set?: CelMap;
  do?: Block;
}

/** Every mapping with a string `id` in the structure of the process (see `elementsOf`). */
export interface ProcessElement {
  id: string;
  pointer: string;
  node: Record<string, unknown>;
  /** A decision table of `spec.decisions` (not a step: it is named by `decide.table`). */
  table: boolean;
}

export interface ProcessModel {
  spec: Raw;
  stages: Stage[];
  /** Process-level boundary timers. */
  timers: Timer[];
  start?: { pointer: string; node: Raw; on?: Trigger; key?: string; set?: CelMap };
  correlate: Handler[];
  onEvent: Handler[];
  /** `spec.decisions` mappings with their pointers. */
  decisions: { id?: string; pointer: string; node: Raw }[];
  /** Every block of steps, outer blocks before the blocks their steps hold. */
  blocks: Block[];
  /** Every step at any depth, in document order (a step before the steps it holds). */
  steps: Step[];
  /** Every element in document order; ids may repeat (duplicate_element_id). */
  elements: ProcessElement[];
  /** The first step with each id. */
  step(id: string): Step | undefined;
  /** The step at a JSON Pointer (an element's pointer, say). */
  stepAt(pointer: string): Step | undefined;
}

const cache = new WeakMap<object, ProcessModel>();

/** The model of a process `spec` (the object's `spec` mapping); built once per spec object. */
export function processModel(spec: Readonly<Record<string, unknown>>): ProcessModel {
  let model = cache.get(spec);
  if (model === undefined) cache.set(spec, (model = new ModelBuilder(spec).build()));
  return model;
}

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Builds the model. Blocks are listed as the analyses read them: the steps of every stage, then the boundary
 * timers of every stage, process timers, event handlers and correlations — each followed, depth first, by the
 * blocks its steps hold. Discretionary work is not a block of `blocks` (a person adds it, in no order), but its
 * steps are steps. Steps are listed depth first (a step before the steps it holds), stage by stage: its steps,
 * its discretionary work, its timers; then process timers, handlers, correlations.
 */
class ModelBuilder {
  /** Blocks by the rank of the top-level block they descend from (see BLOCK_RANKS), each in depth-first order. */
  private readonly ranked: Block[][] = BLOCK_RANKS.map(() => []);
  private readonly steps: Step[] = [];

  constructor(private readonly spec: Raw) {}

  build(): ProcessModel {
    const spec = this.spec;
    const stages = this.mappings(spec.stages, '/spec/stages').map(([node, pointer]) => this.stage(node, pointer));
    const timers = this.timers(spec.timers, '/spec/timers', undefined, 'processTimer');
    const onEvent = this.handlers('onEvent');
    const correlate = this.handlers('correlate');
    const start = isRecord(spec.start) ? { pointer: '/spec/start', node: spec.start, ...this.triggered(spec.start) } : undefined;
    const decisions = this.mappings(spec.decisions, '/spec/decisions').map(([node, pointer]) => ({ pointer, node, ...(text(node.id) !== undefined ? { id: node.id as string } : {}) }));
    const byId = new Map<string, Step>();
    for (const step of this.steps) if (!byId.has(step.id)) byId.set(step.id, step);
    const byPointer = new Map(this.steps.map((step) => [step.pointer, step]));
    return {
      spec, stages, timers, correlate, onEvent, decisions,
      ...(start ? { start } : {}),
      blocks: this.ranked.filter((_, rank) => BLOCK_RANKS[rank] !== 'discretionary').flat(),
      steps: this.steps,
      elements: elementsOf(spec),
      step: (id) => byId.get(id),
      stepAt: (pointer) => byPointer.get(pointer),
    };
  }

  private mappings(value: unknown, pointer: string): [Raw, string][] {
    return list(value).flatMap((item, index) => (isRecord(item) ? [[item, childPointer(pointer, index)] as [Raw, string]] : []));
  }

  private stage(node: Raw, pointer: string): Stage {
    const id = text(node.id) ?? '';
    const stage: Stage = {
      id, pointer, node,
      repeatable: node.repeatable === true,
      steps: this.block(node.steps, `${pointer}/steps`, 'stage', { rank: 'stage', stage: id }),
      milestones: this.mappings(node.milestones, `${pointer}/milestones`).flatMap(([milestone, at]) =>
        text(milestone.id) === undefined ? [] : [{ id: milestone.id as string, pointer: at, ...(text(milestone.when) !== undefined ? { when: milestone.when as string } : {}) }]),
      timers: [],
    };
    if (Array.isArray(node.discretionary)) {
      stage.discretionary = this.block(node.discretionary, `${pointer}/discretionary`, 'discretionary', { rank: 'discretionary', stage: id });
    }
    stage.timers = this.timers(node.timers, `${pointer}/timers`, id, 'stageTimer');
    if (text(node.entry) !== undefined) stage.entry = node.entry as string;
    if (text(node.exit) !== undefined) stage.exit = node.exit as string;
    return stage;
  }

  private timers(value: unknown, pointer: string, stage: string | undefined, rank: BlockRank): Timer[] {
    return this.mappings(value, pointer).map(([node, at]) => ({
      id: text(node.id) ?? '', pointer: at, node, at: node.at, interrupting: node.interrupting === true,
      do: this.block(node.do, `${at}/do`, 'timer', { rank, stage }),
      ...(stage !== undefined ? { stage } : {}),
    }));
  }

  private handlers(role: 'onEvent' | 'correlate'): Handler[] {
    return this.mappings(this.spec[role], `/spec/${role}`).map(([node, pointer]) => {
      const handler: Handler = { pointer, node, ...this.triggered(node) };
      if (Array.isArray(node.do)) handler.do = this.block(node.do, `${pointer}/do`, role, { rank: role, stage: undefined });
      return handler;
    });
  }

  private triggered(node: Raw): { on?: Trigger; key?: string; set?: CelMap } {
    return {
      ...(isRecord(node.on) ? { on: node.on as Trigger } : {}),
      ...(text(node.key) !== undefined ? { key: node.key as string } : {}),
      ...(isRecord(node.set) ? { set: node.set } : {}),
    };
  }

  private block(value: unknown, pointer: string, role: BlockRole, where: Where, holder?: Raw): Block {
    const items = list(value);
    const block: Block = { role, pointer, items, steps: [], ...(holder ? { holder } : {}) };
    if (!Array.isArray(value)) return block;
    this.ranked[BLOCK_RANKS.indexOf(where.rank)]!.push(block);
    items.forEach((item, index) => {
      const step = this.step(item, childPointer(pointer, index), block, index, where);
      if (step !== undefined) block.steps.push(step);
    });
    return block;
  }

  private step(node: unknown, pointer: string, block: Block, index: number, where: Where): Step | undefined {
    if (!isRecord(node)) return undefined;
    const kinds = STEP_KINDS.filter((kind) => Object.hasOwn(node, kind));
    // A mapping with no kind (or several) is not a step the model can type (stage 1 reports it); the blocks it
    // holds are still read, as far as they are blocks of its first kind.
    const kind = kinds[0];
    const step = {
      kind, id: text(node.id) ?? '', pointer, node, body: kind === undefined ? undefined : node[kind], block, index, blocks: [] as Block[],
      ...(text(node.when) !== undefined ? { when: node.when as string } : {}),
      ...(where.stage !== undefined ? { stage: where.stage } : {}),
    } as Step;
    if (kinds.length === 1) this.steps.push(step);
    const inner = (value: unknown, at: string, role: BlockRole, holder?: Raw) => {
      if (Array.isArray(value)) step.blocks.push(this.block(value, at, role, where, holder));
    };
    inner(node.do, `${pointer}/do`, 'do');
    inner(node.onCompensate, `${pointer}/onCompensate`, 'onCompensate');
    const body = step.body;
    if (isRecord(body)) {
      const at = `${pointer}/${kind}`;
      if (kind === 'try') {
        inner(body.do, `${at}/do`, 'try');
        this.mappings(body.catch, `${at}/catch`).forEach(([clause, clauseAt]) => inner(clause.do, `${clauseAt}/do`, 'catch', clause));
      }
      if (kind === 'fork') this.mappings(body.branches, `${at}/branches`).forEach(([branch, branchAt]) => inner(branch.do, `${branchAt}/do`, 'branch', branch));
      if (kind === 'listen') {
        this.mappings(body.any, `${at}/any`).forEach(([option, optionAt]) => inner(option.do, `${optionAt}/do`, 'listen', option));
        inner(body.onTimeout, `${at}/onTimeout`, 'onTimeout');
      }
      if (kind === 'recall') inner(body.onTimeout, `${at}/onTimeout`, 'onTimeout');
    }
    return kinds.length === 1 ? step : undefined;
  }
}

/** The top-level blocks, in the order `blocks` lists them. */
const BLOCK_RANKS = ['stage', 'discretionary', 'stageTimer', 'processTimer', 'onEvent', 'correlate'] as const;
type BlockRank = (typeof BLOCK_RANKS)[number];

interface Where {
  rank: BlockRank;
  stage: string | undefined;
}

/** Keys whose values hold no elements of the process. */
const NOT_STRUCTURE: ReadonlySet<string> = new Set([
  'data', 'form', 'memory', 'input', 'set', 'output', 'export', 'migrations', 'governedBy', 'retrospective', 'context', 'customFields',
]);

/**
 * The elements of a process: every mapping with a string `id` in the spec — stages, steps at any depth,
 * milestones, timers, fork branches, decision tables — as the migration map, the log and package tests name
 * them. Values that are data rather than structure (schemas, forms, CEL maps, memory projections, migrations,
 * …) are not searched: an `id` there is a field, not an element.
 */
function elementsOf(spec: Raw): ProcessElement[] {
  const elements: ProcessElement[] = [];
  const visit = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, childPointer(pointer, index)));
      return;
    }
    if (!isRecord(value)) return;
    if (typeof value.id === 'string') elements.push({ id: value.id, pointer, node: value, table: false });
    for (const [key, item] of Object.entries(value)) if (!NOT_STRUCTURE.has(key)) visit(item, childPointer(pointer, key));
  };
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'decisions') {
      list(value).forEach((table, index) => {
        if (isRecord(table) && typeof table.id === 'string') elements.push({ id: table.id, pointer: childPointer('/spec/decisions', index), node: table, table: true });
      });
    } else if (!NOT_STRUCTURE.has(key)) {
      visit(value, childPointer('/spec', key));
    }
  }
  return elements;
}

/** A key a process writes into its data: `start.set`, `correlate[].set`, a `set` step, `output.as`, `export.as`. */
export interface DataWrite {
  /** The key as written: a dotted path (`purchase.number`). */
  key: string;
  /** JSON Pointer of the expression it writes. */
  pointer: string;
}

/** Every key the process writes into data, in document order of its parts. */
export function dataWrites(model: ProcessModel): DataWrite[] {
  const writes: DataWrite[] = [];
  const fromMap = (map: unknown, pointer: string): void => {
    if (!isRecord(map)) return;
    for (const key of Object.keys(map)) writes.push({ key, pointer: childPointer(pointer, key) });
  };
  if (model.start !== undefined) fromMap(model.start.set, '/spec/start/set');
  for (const handler of model.correlate) fromMap(handler.set, `${handler.pointer}/set`);
  for (const step of model.steps) {
    if (step.kind === 'set') fromMap(step.body, `${step.pointer}/set`);
    for (const mapping of ['output', 'export'] as const) {
      const node = step.node[mapping];
      if (isRecord(node)) fromMap(node.as, `${step.pointer}/${mapping}/as`);
    }
  }
  return writes;
}

/**
 * Whether a read of a data path is covered by the writes: a write of the path, of a prefix of it, or of something
 * below it. Built once per process: a process reads and writes many fields.
 */
export function writtenPaths(writes: readonly DataWrite[]): (path: readonly string[]) => boolean {
  const keys = new Set<string>();
  const prefixes = new Set<string>();
  for (const write of writes) {
    keys.add(write.key);
    const names = write.key.split('.');
    for (let i = 1; i <= names.length; i++) prefixes.add(names.slice(0, i).join('.'));
  }
  return (path) => {
    if (prefixes.has(path.join('.')) || (path.length === 0 && keys.size > 0)) return true;
    for (let i = 1; i <= path.length; i++) if (keys.has(path.slice(0, i).join('.'))) return true;
    return false;
  };
}
