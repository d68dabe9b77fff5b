/**
 * One instance of a `Process` in a package test: its state (data, settings, stages, tasks, approvals, deadlines,
 * the events it recorded, what it covered) and the services its steps, stages and deadlines share — expressions
 * over that state, data writes checked against `spec.data`, assignment of work to people, the task lifecycle,
 * suspension and the end of the instance. What each kind of step does lives in steps/, stages in stages.ts,
 * deadlines in deadlines.ts; engine.ts drives the whole from a scenario.
 */
import { CelEvaluationError, createEnvironment, evaluate, type CelEnvironment, type InstallVariable, type Profile } from '../cel/index.js';
import { processProfile, PROCESS_ERROR_SCHEMA } from '../process/index.js';
import type { PackageObject } from '../model/package.js';
import { processModel, type ProcessModel, type Stage, type Step } from '../process/index.js';
import type { Catalog } from './catalog.js';
import { Cancelled, Scope, VirtualClock } from './clock.js';
import { pointOf } from './due.js';
import type { MockBook } from './mocks.js';
import { ScenarioFailure } from './result.js';
import type { SchemaChecker } from './schemas.js';
import { copy, records, setValueAt } from './values.js';
import { isRecord } from '../json/guards.js';

export interface Problem {
  type: string;
  status?: number;
  detail?: string;
}

/** An RFC 7807 error inside the process: `raise`, a failed call, a broken expression. `try` catches it. */
export class ProcessError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.type);
    this.name = 'ProcessError';
  }
}

export interface EngineEvent {
  type: string;
  kind: 'event' | 'observation';
  time: string;
  payload: Record<string, unknown>;
  actorId?: string;
  source?: string;
  /** The task an observation is bound to. */
  task?: string;
}

export interface TaskRecord {
  id: string;
  step: string;
  kind: 'human' | 'approval';
  taskType: string;
  title?: string;
  /** The principal (or `role:…`, `agent:…`) it is assigned to. */
  assignee?: string;
  /** The role it was assigned through (`role:<slug>`), when a role entry of the chain resolved it. */
  via?: string;
  /** Who may complete it; empty when the test names nobody for the role. */
  candidates: string[];
  state: 'open' | 'completed' | 'cancelled';
  /** The lifecycle status key of the task type (`todo`, `done`, …). */
  status: string;
  due?: string;
  customFields: Record<string, unknown>;
  input?: unknown;
  completedBy?: string;
  resolve?: (output: Record<string, unknown> | undefined) => void;
  fail?: (error: Error) => void;
}

export interface Approval {
  step: string;
  task: TaskRecord;
  candidates: string[];
  mode: 'parallel' | 'sequential';
  needed: number;
  earlyDecision: boolean;
  separationOfDuties?: string;
  ctx: StepContext;
  votes: { by: string; decision: 'approve' | 'reject' }[];
  decide?: (outcome: 'approved' | 'rejected') => void;
}

export interface SlaRecord {
  key: string;
  due: number;
  warnAt?: number;
  state: 'ok' | 'warning' | 'breached';
  open: boolean;
  provisional: boolean;
}

export type StageState = 'not_started' | 'open' | 'completed' | 'skipped';

export interface StageRun {
  stage: Stage;
  state: StageState;
  scope?: Scope;
  interrupted: boolean;
  /** Its steps are done: it completes once its exit guard (if any) holds. */
  stepsDone: boolean;
  /** A repeatable stage may open again once its entry guard was false after it completed. */
  rearmed: boolean;
}

/** What a step sees besides the instance: the event that started its flow, its task, the errors caught around it. */
export interface StepContext {
  event?: EngineEvent;
  task?: TaskRecord;
  catches: Record<string, Problem>;
}

export const NO_CONTEXT: StepContext = { catches: {} };

export interface RecordedEvent {
  type: string;
  at: string;
  step?: string;
  detail?: unknown;
}

export interface ProcessGiven {
  clock?: string;
  data?: Record<string, unknown>;
  stage?: string;
  calendar?: string;
  settings?: Record<string, unknown>;
  principals?: Record<string, string[]>;
}

export interface EngineOptions {
  process: PackageObject;
  catalog: Catalog;
  mocks: MockBook;
  schemas: SchemaChecker;
  given: ProcessGiven;
  variables: Record<string, InstallVariable>;
}

/** Who a task goes to: the first resolvable entry of an assign chain. */
export interface Assignment {
  assignee?: string;
  via?: string;
  candidates: string[];
}

/** A step waiting for an event (`listen`). */
export interface Listener {
  matches(event: EngineEvent): boolean;
  deliver(event: EngineEvent): void;
}

/** Monday 5 January 2026, 09:00 UTC: the clock of a scenario that gives none. */
const DEFAULT_CLOCK = Date.UTC(2026, 0, 5, 9);

export class ProcessInstance {
  readonly model: ProcessModel;
  readonly clock: VirtualClock;
  data: Record<string, unknown> = {};
  settings: Record<string, unknown>;
  status: 'not_started' | 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' = 'not_started';
  outcome?: string;
  error?: Problem;
  key?: string;
  readonly stages: StageRun[];
  readonly milestones = new Set<string>();
  readonly tasks: TaskRecord[] = [];
  readonly approvals: Approval[] = [];
  readonly sla = new Map<string, SlaRecord>();
  readonly events: RecordedEvent[] = [];
  readonly recalled: string[] = [];
  readonly remembered: Record<string, unknown>[] = [];
  /** Skills with side effects (`sideEffects` other than none) the scenario called. */
  readonly sideEffects: string[] = [];
  readonly covered = new Set<string>();
  readonly listeners = new Set<Listener>();
  /** Completed steps with `onCompensate`, oldest first, with the context they ran in. */
  readonly compensable: { step: Step; ctx: StepContext }[] = [];
  /** The first thing that makes the scenario itself wrong (a missing mock, output that breaks a schema). */
  fatal?: ScenarioFailure;
  /** The scope of everything the instance runs: cancelled when it ends. */
  readonly root = new Scope();
  /** The calendar working units count by: the test's `given.calendar` or the process's `spec.calendar`. */
  readonly defaultCalendar?: string;
  startedAt = 0;

  private readonly envs = new Map<string, CelEnvironment>();
  private readonly profile: Profile;
  private suspendedAt?: number;
  private resumeWaiters: (() => void)[] = [];
  private taskCount = 0;

  constructor(readonly options: EngineOptions) {
    const spec = options.process.spec;
    this.model = processModel(spec);
    this.clock = new VirtualClock(options.given.clock === undefined ? DEFAULT_CLOCK : Date.parse(options.given.clock));
    this.settings = options.catalog.settingsWith(options.given.settings);
    this.profile = processProfile({ ...spec, data: options.catalog.dataSchema(options.process) ?? {} }, options.catalog.settingsSchema);
    const calendar = options.given.calendar ?? spec.calendar;
    if (typeof calendar === 'string') this.defaultCalendar = calendar;
    this.stages = this.model.stages.map((stage) => ({ stage, state: 'not_started', interrupted: false, stepsDone: false, rearmed: false }));
  }

  // ---------------------------------------------------------------- lifecycle

  isLive(): boolean {
    return this.status === 'running' || this.status === 'suspended';
  }

  completeInstance(outcome: string | undefined): void {
    if (!this.isLive()) return;
    this.status = 'completed';
    if (outcome !== undefined) this.outcome = outcome;
    this.closeStages();
    this.record('process.completed', undefined, outcome === undefined ? undefined : { outcome });
    this.root.cancel();
  }

  /** Ends the instance by an error; a scenario failure stops the scenario instead. */
  fail(error: unknown): void {
    if (error instanceof Cancelled) return;
    if (error instanceof ScenarioFailure) {
      this.fatal ??= error;
      this.root.cancel();
      return;
    }
    if (!this.isLive()) return;
    const problem = error instanceof ProcessError ? error.problem : { type: 'internal_error', detail: (error as Error).message ?? String(error) };
    this.status = 'failed';
    this.error = problem;
    this.closeStages();
    this.record('process.failed', undefined, problem);
    this.root.cancel();
  }

  /** Runs a flow that nobody awaits; its error ends the instance. */
  spawn(flow: () => Promise<unknown>): void {
    flow().catch((error: unknown) => this.fail(error));
  }

  /** Pauses the instance: its timers stop counting until it resumes. */
  suspend(reason: string | undefined, ctx: StepContext): void {
    if (this.status !== 'running') return;
    this.status = 'suspended';
    this.suspendedAt = this.clock.now;
    this.clock.hold();
    this.record('process.suspended', undefined, reason === undefined ? undefined : { reason: this.evaluateOrNull(reason, ctx) });
  }

  resume(): void {
    if (this.status !== 'suspended') return;
    this.status = 'running';
    this.clock.release(this.clock.now - (this.suspendedAt ?? this.clock.now));
    this.suspendedAt = undefined;
    this.record('process.resumed');
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Waits, in `scope`, until a suspended instance resumes. */
  async whileSuspended(scope: Scope): Promise<void> {
    if (this.status !== 'suspended') return;
    await scope.wait<void>((resolve) => {
      this.resumeWaiters.push(resolve);
      return () => {
        this.resumeWaiters = this.resumeWaiters.filter((w) => w !== resolve);
      };
    });
  }

  private closeStages(): void {
    for (const stage of this.stages) {
      if (stage.state === 'open') stage.state = 'completed';
      else if (stage.state === 'not_started') stage.state = 'skipped';
    }
    for (const record of this.sla.values()) record.open = false;
    for (const task of this.tasks) {
      if (task.state !== 'open') continue;
      task.state = 'cancelled';
      task.status = this.lifecycleStatus(task.taskType, 'terminal_cancelled') ?? 'cancelled';
    }
  }

  // ---------------------------------------------------------------- time

  /** Waits, in `scope`, until the clock reaches `at`; `id` names the timer for the scenario. */
  sleep(at: number, scope: Scope, id: string): Promise<void> {
    return scope.wait<void>((resolve) => this.clock.schedule(at, () => resolve(), { id }));
  }

  /** The moment a `durationOrCel` names, counted from now; a broken one is a process error. */
  point(value: unknown, ctx: StepContext): number {
    try {
      return pointOf(value, this.clock.now, { evaluate: (source) => this.evaluate(source, ctx) });
    } catch (error) {
      if (error instanceof ProcessError) throw error;
      throw new ProcessError({ type: 'expression_error', detail: (error as Error).message });
    }
  }

  // ---------------------------------------------------------------- tasks and people

  createTask(step: string, kind: TaskRecord['kind'], taskType: string, assignment: Assignment, customFields: Record<string, unknown>): TaskRecord {
    const task: TaskRecord = {
      id: `task-${++this.taskCount}`, step, kind, taskType,
      candidates: assignment.candidates, state: 'open',
      status: this.lifecycleStatus(taskType, undefined, 'initialStatus') ?? 'open',
      customFields,
      ...(assignment.assignee !== undefined ? { assignee: assignment.assignee } : {}),
      ...(assignment.via !== undefined ? { via: assignment.via } : {}),
    };
    this.tasks.push(task);
    this.record('process.task_created', step, { taskType });
    return task;
  }

  /** The first resolvable candidate of an assign chain, and who may act on it. */
  assignment(chain: unknown, ctx: StepContext): Assignment {
    for (const entry of records(chain)) {
      const target = this.assignTarget(entry, ctx);
      if (target === undefined) continue;
      if (!target.startsWith('role:')) return { assignee: target, candidates: [target] };
      const members = this.options.given.principals?.[target.slice(5)] ?? [];
      // A role entry with one test principal is that person's task; an expression naming a role keeps the role.
      const assignee = typeof entry.role === 'string' && members.length === 1 ? members[0]! : target;
      return { assignee, via: target, candidates: [...members] };
    }
    return { candidates: [] };
  }

  /** Who one entry of an assign chain names (`role:…`, `agent:…` or a principal), if it names anyone. */
  private assignTarget(entry: Readonly<Record<string, unknown>>, ctx: StepContext): string | undefined {
    if (typeof entry.principal === 'string') return this.substitute(entry.principal);
    if (typeof entry.role === 'string') return `role:${entry.role}`;
    if (typeof entry.agent === 'string') return `agent:${entry.agent}`;
    if (typeof entry.expr !== 'string') return undefined;
    const value = this.evaluateOrNull(entry.expr, ctx);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  /** The latest open task of a step; a scenario that acts on a step with none fails. */
  openTask(step: string, kind: TaskRecord['kind']): TaskRecord {
    const task = [...this.tasks].reverse().find((t) => t.step === step && t.kind === kind && t.state === 'open');
    if (task === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open task${this.openSummary()}`);
    return task;
  }

  /** What is open, and the state of an instance that is not running, for a scenario failure. */
  openSummary(): string {
    const open = this.tasks.filter((t) => t.state === 'open').map((t) => t.step);
    const state = this.status === 'running' ? '' : ` (the instance is ${this.status}${this.error ? `: ${this.error.type}${this.error.detail ? ` — ${this.error.detail}` : ''}` : ''})`;
    return open.length > 0 ? `; open: ${open.join(', ')}${state}` : `; nothing is open${state}`;
  }

  /** A status of a task type's lifecycle: its `field` (`initialStatus`, …), else the first status of `category`. */
  lifecycleStatus(taskType: string, category?: string, field?: string): string | undefined {
    const lifecycle = this.options.catalog.spec('TaskType', taskType)?.lifecycleSchema;
    if (!isRecord(lifecycle)) return undefined;
    if (field !== undefined && typeof lifecycle[field] === 'string') return lifecycle[field];
    return records(lifecycle.statuses).find((s) => s.category === category)?.key as string | undefined;
  }

  // ---------------------------------------------------------------- expressions and data

  /** Writes a CEL map (`set`, `output.as`) into the data; data that breaks `spec.data` is a process error. */
  assign(mapping: Readonly<Record<string, unknown>>, ctx: StepContext, owner: string, result?: unknown): void {
    const next = copy(this.data);
    for (const [path, source] of Object.entries(mapping)) {
      const value = typeof source === 'string' ? this.evaluate(source, ctx, result) : source;
      setValueAt(next, path, value);
    }
    const schema = this.options.catalog.dataSchema(this.options.process);
    const problem = schema === undefined ? undefined : this.options.schemas.problem(schema, next);
    if (problem !== undefined) throw new ProcessError({ type: 'data_type_mismatch', detail: `${owner} writes data that breaks spec.data: ${problem}` });
    this.data = next;
  }

  evaluateMap(mapping: Readonly<Record<string, unknown>>, ctx: StepContext): Record<string, unknown> {
    return Object.fromEntries(Object.entries(mapping).map(([name, source]) => [name, typeof source === 'string' ? this.evaluate(source, ctx) : source]));
  }

  /** The problem a `processError` mapping (`raise`, an escalation's `error`) describes. */
  problemOf(error: { type?: unknown; status?: unknown; detail?: unknown }, ctx: StepContext): Problem {
    const problem: Problem = { type: String(error.type) };
    if (typeof error.status === 'number') problem.status = error.status;
    if (typeof error.detail === 'string') problem.detail = String(this.evaluateOrNull(error.detail, ctx));
    return problem;
  }

  /** The value of an expression, or null where the core would raise a process error. */
  evaluateOrNull(source: string, ctx: StepContext): unknown {
    try {
      return this.evaluate(source, ctx);
    } catch (error) {
      if (error instanceof ProcessError) return null;
      throw error;
    }
  }

  /** The value of a process expression; a broken one is the process error the core would raise. */
  evaluate(source: string, ctx: StepContext, result?: unknown): unknown {
    const env = this.environment(Object.keys(ctx.catches));
    try {
      return evaluate(env, source, this.bindings(ctx, result), {
        variables: this.options.variables,
        calendars: (key) => this.options.catalog.calendar(key),
        ...(this.defaultCalendar !== undefined ? { defaultCalendar: this.defaultCalendar } : {}),
      });
    } catch (error) {
      if (error instanceof CelEvaluationError) throw new ProcessError({ type: error.code, detail: `${source}: ${error.message}` });
      throw error;
    }
  }

  /** What a process expression reads: the instance's state, and the step's event, task, result and caught errors. */
  private bindings(ctx: StepContext, result: unknown): Record<string, unknown> {
    const bindings: Record<string, unknown> = {
      data: this.data,
      settings: this.settings,
      stage: Object.fromEntries(this.stages.map((s) => [s.stage.id, { completed: s.state === 'completed', active: s.state === 'open' }])),
      milestone: Object.fromEntries(this.model.stages.flatMap((s) => s.milestones).map((m) => [m.id, this.milestones.has(m.id)])),
      instance: {
        id: 'instance-1', key: this.key ?? '', version: typeof this.model.spec.version === 'number' ? this.model.spec.version : 1,
        startedAt: this.clock.iso(this.startedAt), clock: this.clock.iso(),
      },
      step: { result: result ?? null },
      ...ctx.catches,
    };
    if (ctx.event !== undefined) bindings.event = ctx.event;
    if (ctx.task !== undefined) bindings.task = { id: ctx.task.id, assigneeId: ctx.task.completedBy ?? ctx.task.assignee ?? '', customFields: ctx.task.customFields };
    return bindings;
  }

  /** The CEL environment of the process, with the names `catch … as` binds (one per set of names). */
  private environment(catchNames: readonly string[]): CelEnvironment {
    const key = catchNames.join(',');
    let env = this.envs.get(key);
    if (env === undefined) {
      const profile: Profile = catchNames.length === 0 ? this.profile
        : { ...this.profile, extraVariables: Object.fromEntries(catchNames.map((name) => [name, PROCESS_ERROR_SCHEMA])) };
      env = createEnvironment(profile);
      this.envs.set(key, env);
    }
    return env;
  }

  /** `${VARIABLE}` in a principal, replaced by the installation variable's value. */
  private substitute(text: string): string {
    return text.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name: string) => this.options.catalog.variableValue(this.options.variables, name) ?? whole);
  }

  /** Whether an event is the one a trigger waits for; a `where` that cannot be evaluated does not match. */
  triggerMatches(trigger: unknown, event: EngineEvent, ctx: StepContext = NO_CONTEXT): boolean {
    if (!isRecord(trigger)) return false;
    const name = event.kind === 'observation' ? trigger.observation : trigger.event;
    if (name !== event.type) return false;
    if (typeof trigger.source === 'string' && trigger.source !== event.source) return false;
    if (typeof trigger.where !== 'string') return true;
    try {
      return this.evaluate(trigger.where, { ...ctx, event }) === true;
    } catch {
      return false;
    }
  }

  /** Adds an event to the instance's journal, at the clock's time. */
  record(type: string, step?: string, detail?: unknown): void {
    this.events.push({ type, at: this.clock.iso(), ...(step !== undefined ? { step } : {}), ...(detail !== undefined ? { detail } : {}) });
  }
}
