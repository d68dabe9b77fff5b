/**
 * The diagram of a process, built on its typed model (`processModel`): what the renderers (Mermaid, DOT, SVG)
 * draw, as data. Stages are clusters in order, each opened by an `enter` point and closed by a `completed`
 * point, so that the guards between stages are edges: a stage waiting for `stage.triage.completed` gets an
 * edge from the end of triage. Steps are nodes shaped by kind, in the order of their block; a guarded step
 * gets its guard on the edge into it and an `else` edge around it; the blocks a step holds (fork branches, try
 * and catch, listen options and timeouts, compensation) hang off it. Boundary timers sit in their stage,
 * process timers and event handlers in clusters of their own, decision tables in one cluster with an edge from
 * every `decide` step that reads them.
 *
 * Every node and cluster keeps the pointer of the part of the spec it draws, so elements that `check` reports
 * as unreachable, and those a test run reached or missed, are marked by pointer and element id.
 */
import { isRecord } from '../json/guards.js';
import { atomsIn, guardOf, processModel, type Block, type Handler, type ProcessModel, type Stage, type Step, type StepKind, type Timer } from '../process/index.js';
import { assigneesText, dueText, namesText, pointText, shortCel, triggerText } from './text.js';

/** What a node draws: a step kind, or a part of the process's structure. */
export type NodeKind =
  | StepKind | 'subprocess'
  | 'start' | 'trigger' | 'enter' | 'done' | 'merge' | 'join' | 'branch' | 'milestone' | 'timer' | 'table';

/** How an element fared: reached or missed by a test run, or never reachable as `check` reports. */
export type Status = 'reached' | 'missed' | 'unreachable';

export type EdgeStyle = 'flow' | 'else' | 'entry' | 'event' | 'catch' | 'timeout' | 'compensate' | 'table';

export interface DiagramNode {
  /** Unique within the diagram: the element id when it has one, else a name no element id can take (it holds `:`). */
  name: string;
  kind: NodeKind;
  title: string;
  /** What the shape says below the title (kind, task type, deadline, …). */
  lines: string[];
  /** The full text behind the node, for the hover. */
  tooltip: string;
  /** The process element drawn, when the node is one. */
  element?: string;
  /** JSON Pointer of the part of the spec drawn. */
  pointer: string;
  cluster?: string;
  /** The step runs only when its `when` holds. */
  guarded?: true;
  status?: Status;
}

export interface DiagramEdge {
  from: string;
  to: string;
  label?: string;
  /** The full text behind the label (the whole guard). */
  tooltip?: string;
  style: EdgeStyle;
}

export interface DiagramCluster {
  name: string;
  kind: 'stage' | 'discretionary' | 'timers' | 'events' | 'decisions';
  label: string;
  tooltip: string;
  element?: string;
  pointer?: string;
  parent?: string;
  status?: Status;
}

export interface Diagram {
  /** The process key. */
  key: string;
  title: string;
  /** Lines under the title: calendar, deadline. */
  lines: string[];
  nodes: DiagramNode[];
  edges: DiagramEdge[];
  clusters: DiagramCluster[];
}

/** What a test run reached of a process (see coverage.ts). */
export interface ElementReach {
  reached: ReadonlySet<string>;
  missed: ReadonlySet<string>;
}

export interface DiagramOptions {
  /** JSON Pointers of the elements `check` reports as unreachable (see unreachable.ts). */
  unreachable?: ReadonlySet<string>;
  coverage?: ElementReach;
}

/** The diagram of the process `key` with the spec `spec`. */
export function processDiagram(key: string, spec: Readonly<Record<string, unknown>>, options: DiagramOptions = {}): Diagram {
  const diagram = new DiagramBuilder(key, processModel(spec)).build();
  markStatus(diagram, options);
  return diagram;
}

/** An edge waiting for the node it leads to: the flow leaves `from` (with the label of the way it leaves). */
interface Exit {
  from: string;
  label?: string;
  tooltip?: string;
  style?: EdgeStyle;
}

/** A step as drawn: where the flow enters it and where it leaves. */
interface Drawn {
  entry: string;
  exits: Exit[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const joined = (...parts: (string | undefined)[]): string | undefined =>
  [...new Set(parts.filter((part): part is string => part !== undefined && part !== ''))].join(' · ') || undefined;

class DiagramBuilder {
  private readonly nodes: DiagramNode[] = [];
  private readonly edges: DiagramEdge[] = [];
  private readonly clusters: DiagramCluster[] = [];
  private readonly names = new Set<string>();
  /** `decide` steps and the table each reads. */
  private readonly decides: { node: string; table: string }[] = [];
  private readonly calendar: string | undefined;

  constructor(
    private readonly key: string,
    private readonly model: ProcessModel,
  ) {
    this.calendar = text(model.spec.calendar);
  }

  build(): Diagram {
    const spec = this.model.spec;
    const start = this.startNode();
    const stages = this.model.stages.map((stage) => ({ stage, ...this.stage(stage) }));
    this.stageEntries(start, stages);
    this.processTimers();
    this.handlers();
    this.decisions();
    this.dropUnusedEnds();
    const lines = [this.calendar !== undefined ? `calendar ${this.calendar}` : undefined, dueText(spec.due, this.calendar)].filter((line): line is string => line !== undefined);
    return { key: this.key, title: text(spec.displayName) ?? this.key, lines, nodes: this.nodes, edges: this.edges, clusters: this.clusters };
  }

  // ------------------------------------------------------------ structure

  private startNode(): string {
    const start = this.model.start;
    const where = isRecord(start?.on) && typeof start.on.where === 'string' ? `\nwhere ${start.on.where}` : '';
    const key = start?.key !== undefined ? `\nkey ${start.key}` : '';
    return this.node({
      name: ':start', kind: 'start', title: start ? triggerText(start.on) : 'start', lines: ['start'],
      tooltip: `The instance starts ${start ? triggerText(start.on) : ''}${where}${key}`.trim(), pointer: '/spec/start',
    });
  }

  private stage(stage: Stage): { enter: string; done: string } {
    const label = text(stage.node.displayName) ?? stage.id;
    const name = this.cluster({
      name: `stage:${stage.id || stage.pointer}`, kind: 'stage', label, pointer: stage.pointer, ...(stage.id ? { element: stage.id } : {}),
      tooltip: [`stage ${stage.id}`, stage.entry !== undefined ? `entry: ${stage.entry}` : 'opens when the instance starts', stage.exit !== undefined ? `exit: ${stage.exit}` : undefined, stage.repeatable ? 'repeatable' : undefined].filter(Boolean).join('\n'),
    });
    const enter = this.node({
      name: `${name}:enter`, kind: 'enter', title: '', lines: [], cluster: name, pointer: stage.pointer,
      tooltip: `${label} opens${stage.entry !== undefined ? ` when ${stage.entry}` : ' when the instance starts'}`,
    });
    const exits = this.block(stage.steps, name, [{ from: enter }]);
    const done = this.node({
      name: `${name}:done`, kind: 'done', title: '', cluster: name, pointer: stage.pointer,
      lines: [stage.exit !== undefined ? `exit: ${shortCel(stage.exit)}` : undefined, stage.repeatable ? 'repeatable' : undefined].filter((line): line is string => line !== undefined),
      tooltip: `${label} completes${stage.exit !== undefined ? ` when its steps are done and ${stage.exit}` : ' when its steps are done'}`,
    });
    this.connect(exits, done);
    for (const milestone of stage.milestones) {
      this.node({
        name: milestone.id, kind: 'milestone', title: milestone.id, element: milestone.id, pointer: milestone.pointer, cluster: name,
        lines: milestone.when !== undefined ? [`when ${shortCel(milestone.when)}`] : [], tooltip: `milestone ${milestone.id}${milestone.when !== undefined ? `\nwhen ${milestone.when}` : ''}`,
      });
    }
    for (const timer of stage.timers) this.timer(timer, name);
    if (stage.discretionary !== undefined && stage.discretionary.steps.length > 0) {
      const work = this.cluster({ name: `${name}:discretionary`, kind: 'discretionary', label: 'discretionary work', tooltip: 'Work a person adds at their discretion', parent: name, pointer: stage.discretionary.pointer });
      for (const step of stage.discretionary.steps) this.step(step, work);
    }
    return { enter, done };
  }

  /** Edges into each stage: from the stages and milestones its entry guard waits for, or from the start. */
  private stageEntries(start: string, stages: { stage: Stage; enter: string; done: string }[]): void {
    const byId = new Map(stages.map((drawn) => [drawn.stage.id, drawn]));
    const milestones = new Set(this.model.stages.flatMap((stage) => stage.milestones.map((milestone) => milestone.id)));
    for (const { stage, enter } of stages) {
      if (stage.entry === undefined) {
        this.edge({ from: start, to: enter, style: 'flow' });
        continue;
      }
      const sources = new Set<string>();
      for (const atom of atomsIn(guardOf(stage.entry))) {
        if (atom.op === 'stage' && byId.has(atom.id)) sources.add(atom.state === 'completed' ? byId.get(atom.id)!.done : byId.get(atom.id)!.enter);
        if (atom.op === 'milestone' && milestones.has(atom.id)) sources.add(this.nameOf(atom.id));
      }
      if (sources.size === 0) sources.add(start);
      for (const from of sources) this.edge({ from, to: enter, label: shortCel(stage.entry), tooltip: `entry: ${stage.entry}`, style: 'entry' });
    }
  }

  private timer(timer: Timer, cluster: string): void {
    const at = typeof timer.at === 'string' ? `after ${timer.at}` : pointText(timer.at);
    const node = this.node({
      name: timer.id || `timer:${timer.pointer}`, kind: 'timer', title: timer.id, pointer: timer.pointer, cluster, ...(timer.id ? { element: timer.id } : {}),
      lines: [at, timer.interrupting ? 'interrupting' : undefined].filter((line): line is string => line !== undefined),
      tooltip: `timer ${timer.id}: ${typeof timer.at === 'string' ? `fires ${timer.at} after ${timer.stage !== undefined ? `stage ${timer.stage} opens` : 'the instance starts'}` : `fires ${JSON.stringify(timer.at)}`}${timer.interrupting ? '; interrupts the work' : ''}`,
    });
    this.block(timer.do, cluster, [{ from: node }]);
  }

  private processTimers(): void {
    if (this.model.timers.length === 0) return;
    const cluster = this.cluster({ name: ':timers', kind: 'timers', label: 'process timers', tooltip: 'Boundary timers of the whole process', pointer: '/spec/timers' });
    for (const timer of this.model.timers) this.timer(timer, cluster);
  }

  private handlers(): void {
    const handlers: [Handler, string][] = [...this.model.onEvent.map((h): [Handler, string] => [h, 'on event']), ...this.model.correlate.map((h): [Handler, string] => [h, 'correlate'])];
    if (handlers.length === 0) return;
    const cluster = this.cluster({ name: ':events', kind: 'events', label: 'events', tooltip: 'What the instance does when an event arrives while it runs' });
    for (const [handler, role] of handlers) {
      const where = isRecord(handler.on) && typeof handler.on.where === 'string' ? `\nwhere ${handler.on.where}` : '';
      const node = this.node({
        name: `trigger:${handler.pointer}`, kind: 'trigger', title: triggerText(handler.on), lines: [role], cluster, pointer: handler.pointer,
        tooltip: `${role} ${triggerText(handler.on)}${where}`,
      });
      this.block(handler.do, cluster, [{ from: node }]);
    }
  }

  private decisions(): void {
    const tables = this.model.decisions.filter((table) => table.id !== undefined);
    if (tables.length === 0) return;
    const cluster = this.cluster({ name: ':decisions', kind: 'decisions', label: 'decision tables', tooltip: 'The decision tables that decide steps read', pointer: '/spec/decisions' });
    const drawn = new Map<string, string>();
    for (const table of tables) {
      const rules = Array.isArray(table.node.rules) ? table.node.rules.length : 0;
      const ids = (list: unknown): string => (Array.isArray(list) ? list.map((item) => (isRecord(item) ? String(item.id) : '?')).join(', ') : '');
      drawn.set(table.id!, this.node({
        name: table.id!, kind: 'table', title: text(table.node.displayName) ?? table.id!, element: table.id!, pointer: table.pointer, cluster,
        lines: [`${text(table.node.hitPolicy) ?? '?'} · ${rules} rule${rules === 1 ? '' : 's'}`],
        tooltip: `decision table ${table.id}: ${ids(table.node.inputs)} → ${ids(table.node.outputs)}`,
      }));
    }
    for (const { node, table } of this.decides) {
      const to = drawn.get(table);
      if (to !== undefined) this.edge({ from: node, to, style: 'table' });
    }
  }

  /** A stage whose every way ends the instance never reaches its `completed` point: it is not drawn. */
  private dropUnusedEnds(): void {
    const used = new Set(this.edges.flatMap((edge) => [edge.from, edge.to]));
    for (let index = this.nodes.length - 1; index >= 0; index--) {
      if (this.nodes[index]!.kind === 'done' && !used.has(this.nodes[index]!.name)) this.nodes.splice(index, 1);
    }
  }

  // ------------------------------------------------------------ flow

  /** Draws a block's steps one after the other, after `incoming`; returns the ways the flow leaves the block. */
  private block(block: Block | undefined, cluster: string, incoming: Exit[]): Exit[] {
    let pending = incoming;
    for (const step of block?.steps ?? []) pending = this.stepInFlow(step, cluster, pending);
    return pending;
  }

  /** A step in a sequence: its guard on the edges into it, and an `else` way around it. */
  private stepInFlow(step: Step, cluster: string, incoming: Exit[]): Exit[] {
    const drawn = this.step(step, cluster);
    if (step.when === undefined) {
      this.connect(incoming, drawn.entry);
      return drawn.exits;
    }
    const guard = { label: shortCel(step.when), tooltip: `when ${step.when}` };
    this.connect(incoming, drawn.entry, guard);
    const otherwise = incoming.map((exit) => ({ ...exit, label: joined(exit.label, 'else'), tooltip: `otherwise (not ${step.when})`, style: 'else' as const }));
    if (drawn.exits.length === 0) return otherwise;
    const merge = this.node({ name: `merge:${step.pointer}`, kind: 'merge', title: '', lines: [], tooltip: `after ${step.id}, or without it`, cluster, pointer: step.pointer });
    this.connect([...drawn.exits, ...otherwise], merge);
    return [{ from: merge }];
  }

  /** The node of a step and the blocks it holds. */
  private step(step: Step, cluster: string): Drawn {
    const node = this.node({ ...stepNode(step, this.calendar), cluster });
    if (step.kind === 'decide' && typeof step.body?.table === 'string') this.decides.push({ node, table: step.body.table });
    const held = (suffix: string): Block | undefined => step.blocks.find((block) => block.pointer === `${step.pointer}/${suffix}`);
    const compensation = held('onCompensate');
    if (compensation !== undefined) this.block(compensation, cluster, [{ from: node, label: 'on compensate', style: 'compensate' }]);
    const body = isRecord(step.body) ? step.body : {};
    switch (step.kind) {
      case 'complete':
      case 'raise':
        return { entry: node, exits: [] };
      case 'fork': {
        const join = this.node({ name: `join:${step.pointer}`, kind: 'join', title: '', lines: [], tooltip: `the branches of ${step.id} join (${text(body.mode) ?? 'all'})`, cluster, pointer: step.pointer });
        (Array.isArray(body.branches) ? body.branches : []).forEach((branch, index) => {
          if (!isRecord(branch)) return;
          const pointer = `${step.pointer}/fork/branches/${index}`;
          const id = text(branch.id);
          const start = this.node({ name: id ?? `branch:${pointer}`, kind: 'branch', title: id ?? 'branch', lines: [], tooltip: `branch ${id ?? index} of ${step.id}`, cluster, pointer, ...(id ? { element: id } : {}) });
          this.edge({ from: node, to: start, style: 'flow' });
          this.connect(this.block(held(`fork/branches/${index}/do`), cluster, [{ from: start }]), join);
        });
        return { entry: node, exits: [{ from: join }] };
      }
      case 'try': {
        const exits = this.block(held('try/do'), cluster, [{ from: node }]);
        (Array.isArray(body.catch) ? body.catch : []).forEach((clause, index) => {
          if (!isRecord(clause)) return;
          const errors = isRecord(clause.errors) ? Object.values(clause.errors).map(String).join(', ') : 'any error';
          exits.push(...this.block(held(`try/catch/${index}/do`), cluster, [{ from: node, label: `catch ${errors}`, tooltip: `catch ${JSON.stringify(clause.errors ?? 'any')}`, style: 'catch' }]));
        });
        return { entry: node, exits };
      }
      case 'do':
        return { entry: node, exits: this.block(held('do'), cluster, [{ from: node }]) };
      case 'listen': {
        const exits: Exit[] = [];
        (Array.isArray(body.any) ? body.any : []).forEach((option, index) => {
          if (!isRecord(option)) return;
          const where = isRecord(option.on) && typeof option.on.where === 'string' ? ` where ${option.on.where}` : '';
          exits.push(...this.block(held(`listen/any/${index}/do`), cluster, [{ from: node, label: triggerText(option.on), tooltip: `${triggerText(option.on)}${where}`, style: 'event' }]));
        });
        if (body.timeout !== undefined || held('listen/onTimeout') !== undefined) exits.push(...this.timeout(node, pointText(body.timeout), held('listen/onTimeout'), cluster));
        return { entry: node, exits };
      }
      case 'recall': {
        const onTimeout = held('recall/onTimeout');
        return { entry: node, exits: [{ from: node }, ...(onTimeout ? this.timeout(node, text(body.timeout), onTimeout, cluster) : [])] };
      }
      default:
        return { entry: node, exits: [{ from: node }] };
    }
  }

  private timeout(node: string, after: string | undefined, block: Block | undefined, cluster: string): Exit[] {
    const label = `timeout${after !== undefined ? ` ${after}` : ''}`;
    return this.block(block, cluster, [{ from: node, label, tooltip: label, style: 'timeout' }]);
  }

  // ------------------------------------------------------------ parts

  private unique(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.names.has(name); n++) name = `${wanted}:${n}`;
    this.names.add(name);
    return name;
  }

  /** The node name of the first node drawing element `id`. */
  private nameOf(id: string): string {
    return this.nodes.find((node) => node.element === id)?.name ?? id;
  }

  private node(node: Omit<DiagramNode, 'name'> & { name: string }): string {
    const name = this.unique(node.name);
    this.nodes.push({ ...node, name });
    return name;
  }

  private cluster(cluster: DiagramCluster): string {
    const name = this.unique(cluster.name);
    this.clusters.push({ ...cluster, name });
    return name;
  }

  private edge(edge: DiagramEdge): void {
    this.edges.push(edge);
  }

  /** Edges from every exit to `to`, each with its own label and `extra`'s (a guard). */
  private connect(exits: readonly Exit[], to: string, extra: { label?: string; tooltip?: string } = {}): void {
    for (const exit of exits) {
      const label = joined(exit.label, extra.label);
      const tooltip = joined(exit.tooltip, extra.tooltip);
      this.edge({ from: exit.from, to, style: exit.style ?? 'flow', ...(label ? { label } : {}), ...(tooltip ? { tooltip } : {}) });
    }
  }
}

/** The node of a step: its kind's shape, its display name, and what the kind says of it. */
function stepNode(step: Step, calendar: string | undefined): Omit<DiagramNode, 'cluster'> {
  const title = text(step.node.displayName) ?? (step.id || step.kind);
  const body = isRecord(step.body) ? step.body : {};
  const due = dueText(body.due, calendar);
  let kind: NodeKind = step.kind;
  let lines: (string | undefined)[];
  switch (step.kind) {
    case 'human':
      lines = [`human task${text(body.taskType) ? ` · ${body.taskType}` : ''}`, text(assigneesText(body.assign)), due];
      break;
    case 'approve':
      lines = [`approval${text(body.mode) ? ` · ${body.mode}` : ''}`, text(assigneesText(body.approvers)), due];
      break;
    case 'call':
      if (text(body.process)) kind = 'subprocess';
      lines = [text(body.process) ? `sub-process ${body.process}` : text(body.agent) ? `agent ${body.agent}` : `skill ${text(body.skill) ?? '?'}`,
        body.timeout !== undefined ? `timeout ${pointText(body.timeout)}` : undefined, due];
      break;
    case 'decide':
      lines = [`decide · ${text(body.table) ?? '?'}`];
      break;
    case 'recall':
      lines = ['recall from memory', due];
      break;
    case 'remember':
      lines = [`remember ${namesText(body.facts) || (isRecord(body.entity) ? text(body.entity.kind) ?? 'an entity' : '')}`.trim()];
      break;
    case 'listen':
      lines = ['wait for an event', due];
      break;
    case 'wait':
      lines = [typeof step.body === 'string' ? `wait ${step.body}` : `wait ${pointText(step.body) ?? ''}`.trim()];
      break;
    case 'set':
      lines = [`set ${namesText(step.body)}`];
      break;
    case 'raise':
      lines = [`raise ${text(body.type) ?? 'an error'}`];
      break;
    case 'compensate':
      lines = [`compensate ${Array.isArray(step.body) ? step.body.join(', ') : String(step.body)}`];
      break;
    case 'fork':
      lines = [`fork · ${text(body.mode) ?? 'all'}`];
      break;
    case 'try':
      lines = [`try${isRecord(body.retry) && body.retry.limit !== undefined ? ` · retry ${String(body.retry.limit)}×` : ''}`];
      break;
    case 'complete':
      lines = [`complete${text(body.outcome) ? ` · ${body.outcome}` : ''}`];
      break;
    default:
      lines = [step.kind];
  }
  const shown = lines.filter((line): line is string => line !== undefined && line !== '');
  const tooltip = [`${step.kind} ${step.id}`, ...shown.slice(1), step.when !== undefined ? `when ${step.when}` : undefined].filter(Boolean).join('\n');
  return {
    name: step.id || `step:${step.pointer}`, kind, title, lines: title === step.id ? shown : [step.id, ...shown].filter(Boolean), tooltip, pointer: step.pointer,
    ...(step.id ? { element: step.id } : {}), ...(step.when !== undefined ? { guarded: true as const } : {}),
  };
}

/** Marks unreachable parts (by pointer: the part and everything in it) and what a test run reached or missed. */
function markStatus(diagram: Diagram, options: DiagramOptions): void {
  const unreachable = [...(options.unreachable ?? [])];
  const within = (pointer: string | undefined): boolean =>
    pointer !== undefined && unreachable.some((marked) => pointer === marked || pointer.startsWith(`${marked}/`));
  const statusOf = (part: { element?: string; pointer?: string }): Status | undefined => {
    if (within(part.pointer)) return 'unreachable';
    if (part.element === undefined || options.coverage === undefined) return undefined;
    if (options.coverage.missed.has(part.element)) return 'missed';
    return options.coverage.reached.has(part.element) ? 'reached' : undefined;
  };
  for (const part of [...diagram.nodes, ...diagram.clusters]) {
    const status = statusOf(part);
    if (status !== undefined) part.status = status;
  }
}
