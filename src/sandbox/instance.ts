/**
 * One process instance of a package test, as the core's engine keeps it: its status, key and data, its stages
 * and milestones, its threads and the activities they wait on, its timers, the events it emitted and what it
 * covered — and the services its parts share: expressions over that state, data writes checked against
 * `spec.data` (with the changes of an input collected for `process.data_changed`), events, and the end of the
 * instance. What drives it is engine.ts; what each step does is steps/; the world around it (people, mocks,
 * other instances, the clock) is world.ts.
 */
import { CelEvaluationError, checkExpression, createEnvironment, evaluate, type CelEnvironment, type Profile } from '../cel/index.js';
import type { PackageObject } from '../model/package.js';
import { processModel, processProfile, PROCESS_ERROR_SCHEMA, type ProcessModel, type Stage, type Step } from '../process/index.js';
import type { InstallVariable } from '../cel/index.js';
import type { ApprovalRequest } from './approvals.js';
import type { Catalog } from './catalog.js';
import type { Coverage } from './coverage.js';
import type { SchemaChecker } from './schemas.js';
import { changedPaths, copy, setValueAt, valueAt } from './values.js';

export interface Problem {
  type: string;
  status?: number;
  detail?: string;
  /** The element the error belongs to, when the instance failed by it. */
  element?: string;
}

/** An RFC 7807 error inside the process: `raise`, a failed call, a broken expression. `try` catches it. */
export class ProcessError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.type);
    this.name = 'ProcessError';
  }
}

/** An event or observation the world offers the instance (`emit` of a scenario). */
export interface EngineEvent {
  id: string;
  /** The event type; `observation.recorded` for an observation. */
  type: string;
  kind: 'event' | 'observation';
  /** The kind of an observation. */
  observation?: string;
  time: string;
  payload: Record<string, unknown>;
  actorId?: string;
  source?: string;
}

/** A `process.*` event the instance emitted, as `expect.events` reads them. */
export interface EmittedEvent {
  type: string;
  at: string;
  element?: string;
  detail?: Record<string, unknown>;
}

export type InstanceStatus = 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';

/** How a stage left: its exit guard held, its work was done, the instance failed, completed or was cancelled. */
export type ExitCause = 'exit' | 'work_done' | 'failed' | 'completed' | 'cancelled';

export interface StageRun {
  stage: Stage;
  state: 'available' | 'active' | 'completed';
  enteredAt: number;
  runs: number;
  /** The input in which it last closed: a repeatable stage enters again only on a later one. */
  closedSeq: number;
  /** Its boundary timers while it is active. */
  timers: TimerRecord[];
}

/** What a step sees besides the instance and its thread: the errors caught around it, what is being compensated. */
export interface FrameContext {
  /** Errors bound by `catch … as`: `{type, status, detail}`. */
  catches: Readonly<Record<string, unknown>>;
  compensated?: string;
}

export const NO_CATCHES: FrameContext = { catches: {} };

/** The record of a task as expressions read it (`task.*`) and as the scenario sees it. */
export interface TaskRecord {
  id: string;
  step: string;
  instance: string;
  /** Empty for the task of an agent call. */
  taskType: string;
  title: string;
  /** The chain link it is assigned to: a principal, `role:<slug>` or `agent:<key>`. */
  assignee: string;
  state: 'open' | 'completed' | 'cancelled';
  /** The lifecycle status key of the task type (`todo`, `done`, …). */
  status: string;
  due?: string;
  customFields: Record<string, unknown>;
  input?: unknown;
  /** Who completed or cancelled it. */
  assigneeId?: string;
}

export interface SlaRecord {
  key: string;
  due?: number;
  warnAt?: number;
  /** Its timers stop while the instance is suspended (the deadline of a stage's work, not of the process). */
  pausable: boolean;
  /** `unknown` when the deadline could not be computed (`process.sla_failed`). */
  state: 'ok' | 'warning' | 'breached' | 'unknown';
  open: boolean;
  provisional: boolean;
}

export interface ProcessGiven {
  clock?: string;
  data?: Record<string, unknown>;
  stage?: string;
  fromInstance?: string;
  calendar?: string;
  settings?: Record<string, unknown>;
  principals?: Record<string, string[]>;
}

/** An intent the sandbox refused (`unknown_role`, `invalid_skill_inputs`, …): the step's thread gets `intent_failed`. */
export interface Refusal {
  refused: string;
}

/** What a task to create holds: its type, title, the candidates of its chain in order (null: a link that names nobody). */
export interface TaskRequest {
  taskType: string;
  title: string;
  candidates: readonly (string | null)[];
  customFields: Record<string, unknown>;
  due?: string;
  input?: unknown;
}

/** An answer of the world to an activity: a closed task, a decided approval, a skill's result, a child's end, a recall. */
export type Answer =
  | { kind: 'task'; task: TaskRecord; cancelled: boolean }
  | { kind: 'approval'; outcome: 'approved' | 'rejected' }
  | { kind: 'result'; output: unknown }
  | { kind: 'error'; problem: Problem }
  | { kind: 'child'; child: ProcessInstance };

/**
 * What an instance asks of the world around it — the core's intents, carried out by the sandbox: tasks and who
 * may act on them, approvals, skills and agents answered by the test's mocks, nested processes, recalls. An
 * answer comes back later, as an input of its own (`later`).
 */
export interface World {
  readonly clock: number;
  readonly catalog: Catalog;
  readonly schemas: SchemaChecker;
  readonly variables: Readonly<Record<string, InstallVariable>>;
  readonly given: ProcessGiven;
  readonly settings: Record<string, unknown>;
  /** Runs `answer` as a later input of the instance. */
  later(instance: ProcessInstance, answer: () => void): void;
  createTask(activity: Activity, request: TaskRequest): TaskRecord | Refusal;
  cancelTask(task: TaskRecord): void;
  reassignTask(task: TaskRecord, candidates: readonly (string | null)[]): void;
  requestApprovals(request: ApprovalRequest, excludedAsWritten: readonly unknown[]): Refusal | undefined;
  invokeSkill(activity: Activity, skill: string, input: Record<string, unknown>): Refusal | undefined;
  invokeAgent(activity: Activity, agent: string, request: TaskRequest, input: Record<string, unknown>): TaskRecord | Refusal;
  startChild(activity: Activity, process: string, data: Record<string, unknown>): Refusal | undefined;
  cancelChild(child: ProcessInstance): void;
  recall(activity: Activity, query: Record<string, unknown>): void;
  /** An instance closed: its parent's call step gets the answer. */
  closed(instance: ProcessInstance): void;
}

/** Monday 5 January 2026, 09:00 UTC: the clock of a scenario that gives none. */
export const DEFAULT_CLOCK = Date.UTC(2026, 0, 5, 9);

/**
 * The CEL environments of a process, by the names `catch … as` adds: built once per process object (a process
 * sees the same data schema and package settings in every scenario of a run) and shared by its instances.
 */
const ENVIRONMENTS = new WeakMap<PackageObject, Map<string, CelEnvironment>>();

/** The journal's bound: frames executed per input before the instance fails with `step_limit_exceeded`. */
const FRAME_LIMIT = 10_000;

export class ProcessInstance {
  readonly model: ProcessModel;
  status: InstanceStatus = 'running';
  outcome?: string;
  error?: Problem;
  key = '';
  data: Record<string, unknown> = {};
  /** The input being handled (1 for the start). */
  seq = 0;
  startedAt: number;
  readonly stages: StageRun[];
  /** Milestones that flipped at least once, with whether they hold now. */
  readonly milestones = new Map<string, boolean>();
  /** Milestones that flipped in the current input: at most one flip each per input. */
  readonly flipped = new Set<string>();
  readonly threads: Thread[] = [];
  readonly activities = new Set<Activity>();
  /** Activities that closed during the current input (for `process.step_exited`). */
  readonly closedActivities: Activity[] = [];
  readonly timers = new Set<TimerRecord>();
  readonly events: EmittedEvent[] = [];
  /** Completed steps with `onCompensate`, in completion order, not yet compensated. */
  readonly compensable: { step: Step; thread: Thread; ctx: FrameContext }[] = [];
  /** Deadlines of steps (by step id) and of the instance (`spec.due`). */
  readonly sla = new Map<string, SlaRecord>();
  processSla?: SlaRecord;
  /** The SLA states read when the instance closed (`expect.sla` of a closed instance). */
  slaAtClose?: Map<string, SlaRecord['state'] | 'paused'>;
  lastTask?: TaskRecord;
  /** Steps whose `when` was false, with the guard and the values it read (for failure messages). */
  readonly skipped = new Map<string, string>();
  readonly remembered: Record<string, unknown>[] = [];
  readonly recalled: string[] = [];
  /** The data at the start of the current input: what changed since is flushed as `process.data_changed`. */
  private dataAtInput: Record<string, unknown> = {};
  private framesThisInput = 0;
  private threadCount = 0;
  private timerCount = 0;
  private readonly envs: Map<string, CelEnvironment>;
  private readonly profile: Profile;

  constructor(
    readonly world: World,
    readonly process: PackageObject,
    readonly id: string,
    readonly coverage: Coverage,
    /** The call step of a parent instance that started this one. */
    readonly parent?: Activity,
  ) {
    this.model = processModel(process.spec);
    this.startedAt = world.clock;
    this.profile = processProfile({ ...process.spec, data: world.catalog.dataSchema(process) ?? {} }, world.catalog.settingsSchema);
    let envs = ENVIRONMENTS.get(process);
    if (envs === undefined) ENVIRONMENTS.set(process, (envs = new Map()));
    this.envs = envs;
    this.stages = this.model.stages.map((stage) => ({ stage, state: 'available', enteredAt: 0, runs: 0, closedSeq: 0, timers: [] }));
  }

  get now(): number {
    return this.world.clock;
  }

  iso(at = this.world.clock): string {
    return new Date(at).toISOString();
  }

  isLive(): boolean {
    return this.status === 'running' || this.status === 'suspended';
  }

  nextThreadId(): number {
    return ++this.threadCount;
  }

  nextTimerNumber(): number {
    return ++this.timerCount;
  }

  /** The calendar working units count by: the test's `given.calendar`, else the process's `spec.calendar`. */
  get defaultCalendar(): string | undefined {
    const calendar = this.world.given.calendar ?? this.model.spec.calendar;
    return typeof calendar === 'string' ? calendar : undefined;
  }

  // ---------------------------------------------------------------- inputs

  /** A new input begins: its number, the data it starts from, the per-input bounds. */
  beginInput(): void {
    this.seq++;
    this.flipped.clear();
    this.closedActivities.length = 0;
    this.framesThisInput = 0;
    this.dataAtInput = copy(this.data);
  }

  /** One more frame executed in this input; past the bound the instance fails. */
  countFrame(): void {
    if (++this.framesThisInput > FRAME_LIMIT) {
      throw new ProcessError({ type: 'step_limit_exceeded', status: 500, detail: `more than ${FRAME_LIMIT} frames in one input` });
    }
  }

  /** The leaf paths of the data that changed in this input (at most 200), and the data is taken as the new base. */
  takeDataChanges(): string[] {
    const changed = changedPaths(this.dataAtInput, this.data);
    if (changed.length > 0) this.dataAtInput = copy(this.data);
    return changed;
  }

  // ---------------------------------------------------------------- events

  emit(type: string, element?: string, detail?: Record<string, unknown>): void {
    this.events.push({ type: `process.${type}`, at: this.iso(), ...(element !== undefined ? { element } : {}), ...(detail !== undefined ? { detail } : {}) });
  }

  // ---------------------------------------------------------------- expressions and data

  /** Writes a CEL map (`set`, `output.as`, `start.set`): every value is computed first, then written. */
  assign(mapping: Readonly<Record<string, unknown>>, bindings: Bindings, pointer: string): void {
    const values = Object.entries(mapping).map(([path, source]) => [path, typeof source === 'string' ? this.evaluate(source, bindings, `${pointer}/${path}`) : source] as const);
    const next = copy(this.data);
    for (const [path, value] of values) setValueAt(next, path, value);
    this.replaceData(next, pointer);
  }

  /** New data for the instance; data that breaks `spec.data` is a process error. */
  replaceData(next: Record<string, unknown>, pointer: string): void {
    const schema = this.world.catalog.dataSchema(this.process);
    const problem = schema === undefined ? undefined : this.world.schemas.problem(schema, next);
    if (problem !== undefined) throw new ProcessError({ type: 'data_type_mismatch', status: 422, detail: `${pointer}: the data would break spec.data: ${problem}` });
    this.data = next;
  }

  evaluateMap(mapping: Readonly<Record<string, unknown>>, bindings: Bindings, pointer: string): Record<string, unknown> {
    return Object.fromEntries(Object.entries(mapping).map(([name, source]) => [name, typeof source === 'string' ? this.evaluate(source, bindings, `${pointer}/${name}`) : source]));
  }

  /** The value of a process expression; a broken one is the process error the core raises (`<pointer>: <message>`). */
  evaluate(source: string, bindings: Bindings, pointer: string): unknown {
    try {
      return evaluate(this.environment(bindings.frame?.catches), source, this.bindings(bindings), {
        variables: this.world.variables,
        calendars: (key) => this.world.catalog.calendar(key),
        ...(this.defaultCalendar !== undefined ? { defaultCalendar: this.defaultCalendar } : {}),
      });
    } catch (error) {
      if (error instanceof CelEvaluationError) throw new ProcessError({ type: error.code, status: 422, detail: `${pointer}: ${error.message}` });
      throw error;
    }
  }

  /** The data paths an expression reads, with their values now: what a skipped step or a guard failure shows. */
  readValues(source: string): string {
    const reads = checkExpression(this.environment(undefined), source, { variables: this.world.variables }).reads;
    const shown = [...new Set(reads.map((read) => read.path.join('.')))].filter((path) => path !== '');
    return shown.map((path) => `data.${path} = ${showValue(valueAt(this.data, path))}`).join(', ');
  }

  /** The CEL type of an expression (`string`, `int`, …), when it type-checks. */
  typeOf(source: string): string | undefined {
    return checkExpression(this.environment(undefined), source, { variables: this.world.variables }).type;
  }

  /** The data paths an expression reads (for a timer recomputed when they change). */
  dataReads(source: string): string[] {
    return checkExpression(this.environment(undefined), source, { variables: this.world.variables }).reads.map((read) => read.path.join('.'));
  }

  /** What an expression reads: the instance's state, and the thread's event, step and task. */
  private bindings(b: Bindings): Record<string, unknown> {
    const thread = b.thread;
    const bindings: Record<string, unknown> = {
      data: this.data,
      settings: this.world.settings,
      stage: Object.fromEntries(this.stages.map((s) => [s.stage.id, { completed: s.state === 'completed', active: s.state === 'active' }])),
      milestone: Object.fromEntries(this.milestones),
      instance: { id: this.id, key: this.key, version: typeof this.model.spec.version === 'number' ? this.model.spec.version : 1, startedAt: this.iso(this.startedAt), clock: this.iso() },
      ...(b.frame?.catches ?? {}),
    };
    const event = b.event ?? thread?.event;
    if (event !== undefined) bindings.event = event;
    const step = b.step ?? thread?.lastStep;
    bindings.step = step ?? { result: null };
    const task = b.task ?? thread?.lastTask ?? this.lastTask;
    if (task !== undefined) bindings.task = taskBinding(task);
    return bindings;
  }

  /** The CEL environment of the process, with the names `catch … as` binds (one per set of names). */
  private environment(catches: Readonly<Record<string, unknown>> | undefined): CelEnvironment {
    const names = catches === undefined ? [] : Object.keys(catches);
    const key = names.join(',');
    let env = this.envs.get(key);
    if (env === undefined) {
      const profile: Profile = names.length === 0 ? this.profile : { ...this.profile, extraVariables: Object.fromEntries(names.map((name) => [name, PROCESS_ERROR_SCHEMA])) };
      env = createEnvironment(profile);
      this.envs.set(key, env);
    }
    return env;
  }

  // ---------------------------------------------------------------- the end

  /** Closes the instance: threads end, activities are cancelled, timers go, active stages close with `cause`. */
  terminate(cause: ExitCause): void {
    this.slaAtClose = new Map([...this.sla].map(([key, record]) => [key, slaState(this, record)]));
    if (this.processSla !== undefined) this.slaAtClose.set('process', slaState(this, this.processSla));
    for (const thread of [...this.threads]) thread.ended = true;
    this.threads.length = 0;
    for (const activity of [...this.activities]) activity.cancel(cause === 'failed' ? 'failed' : 'cancelled');
    for (const timer of [...this.timers]) this.timers.delete(timer);
    for (const record of this.sla.values()) record.open = false;
    if (this.processSla !== undefined) this.processSla.open = false;
    for (const run of this.stages) {
      if (run.state !== 'active') continue;
      run.state = 'completed';
      run.closedSeq = this.seq;
      this.emit('stage_exited', run.stage.id, { cause });
    }
  }
}

/** What an expression is evaluated with besides the instance: its thread, its frame, an event, a step result, a task. */
export interface Bindings {
  thread?: Thread;
  frame?: FrameContext;
  event?: EngineEvent;
  step?: { id: string; status: string; result: unknown };
  task?: TaskRecord;
}

function taskBinding(task: TaskRecord): Record<string, unknown> {
  return {
    id: task.id, typeKey: task.taskType, title: task.title, status: task.status, customFields: task.customFields,
    assigneeId: task.assigneeId ?? (task.assignee.startsWith('role:') ? '' : task.assignee),
  };
}

/** The state `expect.sla` reads of a deadline now: breached once due (even before its timer fired). */
export function slaState(instance: ProcessInstance, record: SlaRecord): SlaRecord['state'] | 'paused' {
  if (record.state === 'unknown') return 'unknown';
  if (instance.status === 'suspended' && record.open && record.pausable) return 'paused';
  if (record.due !== undefined && record.due <= instance.now) return 'breached';
  return record.state;
}

function showValue(value: unknown): string {
  return value === undefined ? 'unset' : JSON.stringify(value);
}

// ---------------------------------------------------------------- threads

/** Where a thread's work belongs: a stage (paused while suspended, ended when the stage exits), the process, or closing. */
export type ThreadScope = { kind: 'stage'; stage: string } | { kind: 'process' } | { kind: 'closing' };

/** A block of steps being run, and what holds it. */
export interface Frame {
  steps: readonly Step[];
  index: number;
  ctx: FrameContext;
  /** The step whose block this is: it counts as executed once a step inside runs. */
  owner?: Step;
  /** The block ran to its end. */
  onEnd?: () => void;
  /** A `try` in its do phase: handles an error raised inside (true), or lets it go up. */
  onError?: (problem: Problem) => boolean;
}

/** A stack of frames run until it waits or ends; a fork's branches are threads of their own. */
export class Thread {
  readonly frames: Frame[] = [];
  waiting?: Activity;
  /** What the thread does first when it runs again (an activity's answer). */
  next?: () => void;
  ended = false;
  /** The event that spawned it, replaced by the event a `listen` matched. */
  event?: EngineEvent;
  lastStep?: { id: string; status: string; result: unknown };
  lastTask?: TaskRecord;
  /** Where its end goes: the fork it is a branch of. */
  exit?: { done(): void; failed(problem: Problem): void };

  constructor(
    readonly id: number,
    readonly scope: ThreadScope,
  ) {}

  get stage(): string | undefined {
    return this.scope.kind === 'stage' ? this.scope.stage : undefined;
  }
}

export type ActivityKind = 'human' | 'approve' | 'call' | 'recall' | 'listen' | 'wait' | 'fork' | 'retry';

export type ExitOutcome = 'completed' | 'timed_out' | 'withdrawn' | 'failed' | 'interrupted' | 'cancelled' | 'migrated';

/** The step kinds whose activities the application reports as `process.step_entered` / `process.step_exited`. */
const WAITING_KINDS: ReadonlySet<ActivityKind> = new Set(['human', 'approve', 'call', 'recall', 'listen', 'wait']);

export class Activity {
  readonly timers: TimerRecord[] = [];
  readonly openedSeq: number;
  closedSeq?: number;
  outcome?: ExitOutcome;
  task?: TaskRecord;
  approval?: ApprovalRequest;
  child?: ProcessInstance;
  /** What the activity waits for, for a scenario that finds nothing to act on (`a skill nobody mocked`). */
  waitingFor?: string;
  /** What the step does with an answer from the world. */
  onAnswer?: (answer: Answer) => void;
  /** A listen's ear: whether it takes the event (and goes on with it). */
  hear?: (event: EngineEvent) => boolean;
  /** Ends the work outside the instance when the activity is cancelled: the task, the approvals, the child. */
  onCancel?: (outcome: ExitOutcome) => void;

  constructor(
    readonly kind: ActivityKind,
    readonly step: Step,
    readonly thread: Thread,
    readonly instance: ProcessInstance,
  ) {
    this.openedSeq = instance.seq;
    instance.activities.add(this);
    thread.waiting = this;
  }

  get open(): boolean {
    return this.closedSeq === undefined;
  }

  /** Whether the application reports it entering and leaving (`process.step_entered` / `step_exited`). */
  get reported(): boolean {
    return WAITING_KINDS.has(this.kind);
  }

  /** The activity is over: its timers go, its deadline stops, its thread no longer waits on it. */
  close(outcome: ExitOutcome): void {
    if (!this.open) return;
    this.outcome = outcome;
    this.closedSeq = this.instance.seq;
    this.instance.activities.delete(this);
    this.instance.closedActivities.push(this);
    for (const timer of this.timers) cancelTimer(timer);
    const sla = this.reported ? this.instance.sla.get(this.step.id) : undefined;
    if (sla !== undefined) sla.open = false;
    if (this.thread.waiting === this) this.thread.waiting = undefined;
  }

  /** The activity is ended from outside its step (an exit, an interrupting timer, a lost branch, an error). */
  cancel(outcome: ExitOutcome): void {
    if (!this.open) return;
    this.onCancel?.(outcome);
    this.close(outcome);
  }
}

export interface TimerRecord {
  instance: ProcessInstance;
  /** Its number in the instance: ties of the same moment go in this order. */
  no: number;
  /** What a scenario names it by (`until:<id>`, `expect.timers[].id`): a timer id, or `<element>.due` and the like. */
  id: string;
  /** The element it belongs to (`until:<element>` names it too). */
  element: string;
  at: number;
  provisional: boolean;
  /** A timer of a stage's work: it stops while the instance is suspended. */
  pausable: boolean;
  /** What was left of it when the instance was suspended. */
  remaining?: number;
  /** Recomputed when data it reads change: the paths, and how to compute its moment again. */
  recompute?: { reads: readonly string[]; at(): number };
  /** An SLA timer (no `process.timer_fired` for it). */
  sla: boolean;
  /** Told the new moment when a resume sets the timer again (a deadline's record, a task's due). */
  moved?: (at: number) => void;
  fire(): void;
}

export type TimerSpec = Omit<TimerRecord, 'instance' | 'no' | 'provisional' | 'pausable' | 'sla'> & Partial<Pick<TimerRecord, 'provisional' | 'pausable' | 'sla'>>;

/** Sets a timer of the instance; `owner` (an activity or a stage's list) keeps it to cancel it with its work. */
export function setTimer(instance: ProcessInstance, spec: TimerSpec, owner?: TimerRecord[]): TimerRecord {
  const timer: TimerRecord = { instance, no: instance.nextTimerNumber(), provisional: false, pausable: false, sla: false, ...spec };
  if (instance.status === 'suspended' && timer.pausable) timer.remaining = Math.max(0, timer.at - instance.now);
  instance.timers.add(timer);
  owner?.push(timer);
  return timer;
}

function cancelTimer(timer: TimerRecord): void {
  timer.instance.timers.delete(timer);
}
