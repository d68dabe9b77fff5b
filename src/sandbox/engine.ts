/**
 * The process engine of package tests: one instance of a `Process` in virtual time, driven by a scenario
 * (emit, advance, complete, approve, settings) and inspected by its expectations.
 *
 * Stages open when their entry guard holds (at once without one), run their steps in order and complete when
 * the steps are done and the exit guard (a completion condition) holds; the instance completes at a `complete` step, or when no stage is
 * open and none can open. Steps that wait (human, approve, listen, wait, retries) are awaits on the engine's
 * own promises, so a fork is `Promise.all`/`race`, a try is try/catch, and cancelling a scope unwinds
 * whatever it started (see clock.ts).
 */
import {
  CelEvaluationError, createEnvironment, evaluate, processProfile, PROCESS_ERROR_SCHEMA,
  type CelEnvironment, type InstallVariable, type Profile,
} from '../cel/index.js';
import type { PackageObject } from '../model/package.js';
import type { SandboxCalendar } from './calendar.js';
import type { Catalog } from './catalog.js';
import { Cancelled, Scope, settle, VirtualClock } from './clock.js';
import { decide } from './decision.js';
import { deadline, milliseconds, pointOf, type DueContext } from './due.js';
import type { MockBook } from './mocks.js';
import { ScenarioFailure } from './result.js';
import type { SchemaChecker } from './schemas.js';
import { copy, isRecord, setValueAt } from './values.js';

type Spec = Record<string, unknown>;

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

interface Approval {
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

interface StageRun {
  spec: Spec;
  id: string;
  state: StageState;
  scope?: Scope;
  interrupted: boolean;
  /** Its steps are done: it completes once its exit guard (if any) holds. */
  stepsDone: boolean;
  /** A repeatable stage may open again once its entry guard was false after it completed. */
  rearmed: boolean;
}

interface StepContext {
  event?: EngineEvent;
  task?: TaskRecord;
  catches: Record<string, Problem>;
}

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

const NO_CONTEXT: StepContext = { catches: {} };

export class ProcessRun {
  readonly clock: VirtualClock;
  readonly spec: Spec;
  data: Record<string, unknown> = {};
  settings: Record<string, unknown>;
  status: 'not_started' | 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' = 'not_started';
  outcome?: string;
  error?: Problem;
  key?: string;
  readonly stages: StageRun[];
  readonly milestones = new Set<string>();
  readonly tasks: TaskRecord[] = [];
  readonly sla = new Map<string, SlaRecord>();
  readonly events: RecordedEvent[] = [];
  readonly recalled: string[] = [];
  readonly remembered: Record<string, unknown>[] = [];
  /** Skills with side effects (`sideEffects` other than none) the scenario called. */
  readonly sideEffects: string[] = [];
  readonly covered = new Set<string>();
  /** The first thing that makes the scenario itself wrong (a missing mock, output that breaks a schema). */
  fatal?: ScenarioFailure;

  private readonly root = new Scope();
  private readonly approvals: Approval[] = [];
  private readonly listeners = new Set<{ matches(event: EngineEvent): boolean; deliver(event: EngineEvent): void }>();
  private readonly compensable: { step: Spec; ctx: StepContext }[] = [];
  private readonly envs = new Map<string, CelEnvironment>();
  private readonly profile: Profile;
  private readonly defaultCalendar?: string;
  private startedAt = 0;
  private suspendedAt?: number;
  private resumeWaiters: (() => void)[] = [];
  private taskCount = 0;
  private evaluating = false;

  constructor(private readonly options: EngineOptions) {
    this.spec = options.process.spec;
    const clock = options.given.clock === undefined ? Date.UTC(2026, 0, 5, 9) : Date.parse(options.given.clock);
    this.clock = new VirtualClock(clock);
    this.settings = options.catalog.settingsWith(options.given.settings);
    const settingsSchema = options.catalog.settingsSchema;
    this.profile = processProfile({ ...this.spec, data: options.catalog.dataSchema(options.process) ?? {} }, settingsSchema);
    const calendar = options.given.calendar ?? this.spec.calendar;
    if (typeof calendar === 'string') this.defaultCalendar = calendar;
    this.stages = list(this.spec.stages).map((stage) => ({ spec: stage, id: String(stage.id), state: 'not_started', interrupted: false, stepsDone: false, rearmed: false }));
  }

  // ---------------------------------------------------------------- driving

  /** Starts the instance from `given.data` (a scenario without a start event). */
  async startFromGiven(): Promise<void> {
    this.begin(undefined, copy(this.options.given.data ?? {}));
    await settle();
  }

  async emit(event: EngineEvent): Promise<void> {
    if (this.status === 'not_started') {
      const start = isRecord(this.spec.start) ? this.spec.start : {};
      if (this.triggerMatches(start.on, event)) this.begin(event, copy(this.options.given.data ?? {}));
    } else if (this.isLive()) {
      this.correlate(event);
      for (const handler of list(this.spec.onEvent)) {
        if (this.triggerMatches(handler.on, event)) this.spawn(() => this.runBlocks(list(handler.do), this.root.child(), { ...NO_CONTEXT, event }));
      }
      for (const listener of [...this.listeners]) if (listener.matches(event)) listener.deliver(event);
    }
    await settle();
  }

  async advance(milliseconds: number): Promise<void> {
    await this.clock.advanceTo(this.clock.now + milliseconds, settle);
  }

  async advanceUntil(timerId: string): Promise<boolean> {
    const timer = this.clock.pending().find((t) => t.id === timerId);
    if (timer === undefined) return false;
    await this.clock.advanceTo(timer.at, settle);
    return true;
  }

  /** Completes (or cancels) the latest open task of a step. */
  async complete(step: string, by: string | undefined, output: Record<string, unknown> | undefined, cancel: boolean): Promise<void> {
    const task = this.openTask(step, 'human');
    if (by !== undefined && task.candidates.length > 0 && !task.candidates.includes(by)) {
      throw new ScenarioFailure('not_assignee', `${by} may not complete the task of step '${step}': it is assigned to ${task.assignee ?? 'nobody'} (${task.candidates.join(', ')})`);
    }
    if (!cancel) {
      const form = this.formSchema(step);
      const problem = form === undefined ? undefined : this.options.schemas.problem(form, output ?? {});
      if (problem !== undefined) throw new ScenarioFailure('output_invalid', `the output does not match the form of step '${step}': ${problem}`);
    }
    await this.close(task, cancel, by, output);
  }

  /**
   * A work rule closes the task an observation is bound to (`action.target: task`). The rule acts with its own
   * authority and gives no form data, so neither the assignment nor the form is checked; the step's output is `{}`.
   */
  async closeByRule(task: TaskRecord, cancel: boolean, by: string | undefined): Promise<void> {
    await this.close(task, cancel, by, {});
  }

  private async close(task: TaskRecord, cancel: boolean, by: string | undefined, output: Record<string, unknown> | undefined): Promise<void> {
    if (cancel) {
      task.state = 'cancelled';
      task.status = this.lifecycleStatus(task.taskType, 'terminal_cancelled') ?? 'cancelled';
      this.record('process.task_cancelled', task.step);
    } else {
      task.state = 'completed';
      task.status = this.lifecycleStatus(task.taskType, 'terminal_success', 'completionStatus') ?? 'done';
      this.record('process.task_completed', task.step);
    }
    if (by !== undefined) {
      task.assignee = by;
      task.completedBy = by;
    }
    task.resolve?.(cancel ? undefined : (output ?? {}));
    await settle();
  }

  /** A vote on an open approval; answers the core's refusal code when it would refuse it. */
  async approve(step: string, by: string, decision: 'approve' | 'reject'): Promise<string | undefined> {
    const approval = this.approvals.find((a) => a.step === step && a.decide !== undefined);
    if (approval === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open approval${this.openSummary()}`);
    const refusal = this.refusal(approval, by);
    if (refusal !== undefined) return refusal;
    approval.votes.push({ by, decision });
    this.record('process.approval_vote', step, { by, decision });
    this.tally(approval);
    await settle();
    return undefined;
  }

  async saveSettings(values: Record<string, unknown>): Promise<void> {
    this.settings = this.options.catalog.settingsWith(values);
    this.reevaluate();
    await settle();
  }

  // ---------------------------------------------------------------- inspection

  stageState(id: string): StageState | undefined {
    return this.stages.find((stage) => stage.id === id)?.state;
  }

  slaState(key: string): 'ok' | 'warning' | 'breached' | 'paused' | undefined {
    const record = this.sla.get(key);
    if (record === undefined) return undefined;
    return this.status === 'suspended' && record.open ? 'paused' : record.state;
  }

  timers(): { id: string; at: string; provisional: boolean }[] {
    return this.clock.pending().filter((t) => t.id !== undefined).map((t) => ({ id: t.id!, at: this.clock.iso(t.at), provisional: t.provisional }));
  }

  // ---------------------------------------------------------------- lifecycle

  private begin(event: EngineEvent | undefined, data: Record<string, unknown>): void {
    this.status = 'running';
    this.startedAt = this.clock.now;
    this.data = data;
    const start = isRecord(this.spec.start) ? this.spec.start : {};
    const ctx: StepContext = { ...NO_CONTEXT, ...(event ? { event } : {}) };
    try {
      this.key = event !== undefined && typeof start.key === 'string' ? String(this.evaluate(start.key, ctx)) : 'instance';
      if (event !== undefined && isRecord(start.set)) this.assign(start.set, ctx, 'start');
    } catch (error) {
      this.fail(error);
      return;
    }
    this.record('process.started');
    if (this.spec.due !== undefined) this.startDeadline('process', this.spec.due, this.root, ctx, {});
    for (const timer of list(this.spec.timers)) this.armTimer(timer, this.root, undefined);
    const given = this.options.given.stage;
    if (given !== undefined) {
      const stage = this.stages.find((s) => s.id === given);
      if (stage === undefined) throw new ScenarioFailure('unknown_stage', `given.stage '${given}' is not a stage of process '${this.options.process.key}'`);
      this.openStage(stage);
    }
    this.reevaluate();
  }

  private correlate(event: EngineEvent): void {
    for (const entry of list(this.spec.correlate)) {
      if (!this.triggerMatches(entry.on, event)) continue;
      const ctx = { ...NO_CONTEXT, event };
      try {
        if (typeof entry.key === 'string' && String(this.evaluate(entry.key, ctx)) !== this.key) continue;
        if (isRecord(entry.set)) this.assign(entry.set, ctx, 'correlate');
      } catch (error) {
        this.fail(error);
        return;
      }
      this.record('process.correlated');
      this.spawn(() => this.runBlocks(list(entry.do), this.root.child(), ctx));
      this.reevaluate();
    }
  }

  private isLive(): boolean {
    return this.status === 'running' || this.status === 'suspended';
  }

  private completeInstance(outcome: string | undefined): void {
    if (!this.isLive()) return;
    this.status = 'completed';
    if (outcome !== undefined) this.outcome = outcome;
    this.closeStages();
    this.record('process.completed', undefined, outcome === undefined ? undefined : { outcome });
    this.root.cancel();
  }

  /** Ends the instance by an error; a scenario failure stops the scenario instead. */
  private fail(error: unknown): void {
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

  /** Runs a flow that nobody awaits; its error ends the instance. */
  private spawn(flow: () => Promise<unknown>): void {
    flow().catch((error: unknown) => this.fail(error));
  }

  // ---------------------------------------------------------------- stages

  /** Guards after any change: milestones, exits, entries, and the end of an instance with nothing left to do. */
  private reevaluate(): void {
    if (this.evaluating || !this.isLive()) return;
    this.evaluating = true;
    try {
      let changed = true;
      while (changed && this.isLive()) {
        changed = false;
        for (const stage of this.stages) {
          if (stage.state === 'open') {
            for (const milestone of list(stage.spec.milestones)) {
              const id = String(milestone.id);
              if (!this.milestones.has(id) && this.guard(milestone.when)) {
                this.milestones.add(id);
                this.covered.add(id);
                this.record('process.milestone_reached', id);
                changed = true;
              }
            }
            if (stage.stepsDone && this.guard(stage.spec.exit)) {
              this.finishStage(stage);
              changed = true;
            }
          } else if (stage.state === 'not_started' || (stage.state === 'completed' && stage.spec.repeatable === true)) {
            const entry = stage.spec.entry === undefined ? stage.state === 'not_started' : this.guard(stage.spec.entry);
            if (stage.state === 'completed' && !entry) stage.rearmed = true;
            if (entry && (stage.state === 'not_started' || stage.rearmed)) {
              this.openStage(stage);
              changed = true;
            }
          }
        }
      }
      if (this.isLive() && !this.stages.some((stage) => stage.state === 'open')) this.completeInstance(undefined);
    } finally {
      this.evaluating = false;
    }
  }

  private guard(source: unknown): boolean {
    if (typeof source !== 'string') return true;
    try {
      return this.evaluate(source, NO_CONTEXT) === true;
    } catch {
      return false; // an unset field read by a guard means "not yet"
    }
  }

  private openStage(stage: StageRun): void {
    stage.state = 'open';
    stage.rearmed = false;
    stage.interrupted = false;
    stage.stepsDone = false;
    this.covered.add(stage.id);
    this.record('process.stage_entered', stage.id);
    const scope = this.root.child();
    stage.scope = scope;
    for (const timer of list(stage.spec.timers)) this.armTimer(timer, scope, stage);
    const steps = scope.child();
    this.spawn(async () => {
      try {
        await this.runBlocks(list(stage.spec.steps), steps, NO_CONTEXT);
      } catch (error) {
        if (!(error instanceof Cancelled)) throw error;
        return;
      }
      if (stage.interrupted) return;
      stage.stepsDone = true;
      if (this.guard(stage.spec.exit)) this.finishStage(stage);
      else this.reevaluate();
    });
  }

  private finishStage(stage: StageRun): void {
    if (stage.state !== 'open') return;
    stage.state = 'completed';
    stage.scope?.cancel();
    this.record('process.stage_completed', stage.id);
    this.reevaluate();
  }

  /** A boundary timer of a stage (or of the process) that fires while its owner is open. */
  private armTimer(timer: Spec, scope: Scope, stage: StageRun | undefined): void {
    const id = String(timer.id);
    let at: number;
    try {
      at = pointOf(timer.at, this.clock.now, { evaluate: (source) => this.evaluate(source, NO_CONTEXT) });
    } catch (error) {
      this.fail(new ProcessError({ type: 'expression_error', detail: `timer '${id}': ${(error as Error).message}` }));
      return;
    }
    const cancel = this.clock.schedule(at, () => {
      if (!this.isLive()) return;
      this.covered.add(id);
      this.record('process.timer_fired', id);
      if (timer.interrupting === true && stage !== undefined) {
        stage.interrupted = true;
        stage.scope?.cancel();
        this.spawn(async () => {
          await this.runBlocks(list(timer.do), this.root.child(), NO_CONTEXT);
          stage.interrupted = false;
          stage.state = 'open';
          this.finishStage(stage);
        });
      } else {
        this.spawn(() => this.runBlocks(list(timer.do), scope.child(), NO_CONTEXT));
      }
    }, { id });
    scope.onEnd(cancel);
  }

  // ---------------------------------------------------------------- steps

  private async runBlocks(steps: readonly Spec[], scope: Scope, ctx: StepContext): Promise<void> {
    for (const step of steps) await this.runStep(step, scope, ctx);
  }

  private async runStep(step: Spec, scope: Scope, ctx: StepContext): Promise<void> {
    if (scope.cancelled) throw new Cancelled();
    if (!('resume' in step)) await this.whileSuspended(scope);
    const id = String(step.id);
    if (step.when !== undefined && this.evaluate(String(step.when), ctx) !== true) {
      this.record('process.step_skipped', id);
      return;
    }
    this.covered.add(id);
    const done = await this.execute(step, id, scope, ctx);
    if (done.skipOutput !== true) {
      const output = isRecord(step.output) && isRecord(step.output.as) ? step.output.as : undefined;
      if (output !== undefined) {
        const outputCtx: StepContext = { ...ctx, ...(done.task ? { task: done.task } : {}) };
        this.assign(output, outputCtx, id, done.result);
      }
    }
    if (Array.isArray(step.onCompensate)) this.compensable.push({ step, ctx });
    this.record('process.step_completed', id);
    this.reevaluate();
  }

  private async execute(step: Spec, id: string, scope: Scope, ctx: StepContext): Promise<{ result?: unknown; task?: TaskRecord; skipOutput?: boolean }> {
    if (isRecord(step.human)) return this.human(step.human, id, scope, ctx);
    if (isRecord(step.approve)) return this.approval(step.approve, id, scope, ctx);
    if (isRecord(step.call)) return this.call(step.call, id, scope, ctx);
    if (isRecord(step.decide)) return { result: this.decision(step.decide, ctx) };
    if (isRecord(step.recall)) return this.recall(step.recall, id, scope, ctx);
    if (isRecord(step.remember)) return this.remember(step.remember, id, ctx);
    if (isRecord(step.listen)) return this.listen(step.listen, id, scope, ctx);
    if (step.wait !== undefined) {
      await this.sleep(this.point(step.wait, ctx), scope, id);
      return {};
    }
    if (isRecord(step.set)) return void this.assign(step.set, ctx, id), {};
    if (isRecord(step.raise)) throw new ProcessError(this.problemOf(step.raise, ctx));
    if (step.compensate !== undefined) return void (await this.compensate(step.compensate, scope)), {};
    if (isRecord(step.fork)) return void (await this.fork(step.fork, scope, ctx)), {};
    if (isRecord(step.try)) return void (await this.attempt(step.try, scope, ctx)), {};
    if (Array.isArray(step.do)) return void (await this.runBlocks(list(step.do), scope, ctx)), {};
    if (isRecord(step.suspend)) return void this.suspend(step.suspend, ctx), {};
    if (isRecord(step.resume)) return void this.resume(), {};
    if (isRecord(step.complete)) {
      this.completeInstance(typeof step.complete.outcome === 'string' ? step.complete.outcome : undefined);
      throw new Cancelled();
    }
    throw new ScenarioFailure('unknown_step_kind', `step '${id}' has no kind the engine knows`);
  }

  private async human(human: Spec, id: string, scope: Scope, ctx: StepContext): Promise<{ result?: unknown; task: TaskRecord }> {
    const taskType = String(human.taskType);
    const customFields: Record<string, unknown> = {};
    if (isRecord(human.customFields)) {
      for (const [field, source] of Object.entries(human.customFields)) {
        const value = typeof source === 'string' ? this.evaluate(source, ctx) : source;
        if (value !== null && value !== undefined) customFields[field] = value;
      }
      const fieldSchema = this.options.catalog.spec('TaskType', taskType)?.fieldSchema;
      const problem = fieldSchema === undefined ? undefined : this.options.schemas.problem(fieldSchema, customFields);
      if (problem !== undefined) throw new ScenarioFailure('custom_fields_invalid', `the customFields of step '${id}' do not match the fieldSchema of task type '${taskType}': ${problem}`);
    }
    const task = this.createTask(id, 'human', taskType, this.assignment(human.assign, ctx), customFields);
    if (typeof human.title === 'string') task.title = String(this.evaluate(human.title, ctx));
    const step = this.findStep(id);
    if (isRecord(step?.input) && typeof step.input.from === 'string') task.input = this.evaluate(step.input.from, ctx);
    const taskCtx = { ...ctx, task };
    const work = scope.child();
    if (human.due !== undefined) task.due = this.clock.iso(this.startDeadline(id, human.due, work, taskCtx, { escalations: list(human.escalations), task }).due);
    try {
      const output = await work.wait<Record<string, unknown> | undefined>((resolve, fail) => {
        task.resolve = resolve;
        task.fail = fail;
        return () => {
          task.resolve = undefined;
          task.fail = undefined;
        };
      });
      return output === undefined ? { task, skipOutput: true } as { task: TaskRecord } : { result: output, task };
    } finally {
      this.closeDeadline(id);
      work.close();
      work.cancel();
      if (task.state === 'open') task.state = 'cancelled';
    }
  }

  private async approval(approve: Spec, id: string, scope: Scope, ctx: StepContext): Promise<{ result: unknown; task: TaskRecord }> {
    const assignment = this.assignment(approve.approvers, ctx);
    const candidates = assignment.candidates.length > 0 ? assignment.candidates : assignment.assignee ? [assignment.assignee] : [];
    const task = this.createTask(id, 'approval', typeof approve.taskType === 'string' ? approve.taskType : 'approval', assignment, {});
    const record: Approval = {
      step: id, task, candidates, ctx,
      mode: approve.mode === 'sequential' ? 'sequential' : 'parallel',
      needed: quorumNeeded(approve.quorum, candidates.length),
      earlyDecision: approve.earlyDecision !== false,
      votes: [],
      ...(typeof approve.separationOfDuties === 'string' ? { separationOfDuties: approve.separationOfDuties } : {}),
    };
    this.approvals.push(record);
    const work = scope.child();
    if (approve.due !== undefined) {
      const due = this.startDeadline(id, approve.due, work, { ...ctx, task }, { escalations: list(approve.escalations), task, onDue: approve.onDue, approval: record });
      task.due = this.clock.iso(due.due);
    }
    try {
      const outcome = await work.wait<'approved' | 'rejected'>((resolve, fail) => {
        record.decide = resolve;
        task.fail = fail;
        return () => {
          record.decide = undefined;
        };
      });
      task.state = 'completed';
      task.status = outcome;
      this.record(`process.approval_${outcome}`, id);
      const approvedBy = record.votes.filter((v) => v.decision === 'approve').map((v) => v.by);
      const rejectedBy = record.votes.filter((v) => v.decision === 'reject').map((v) => v.by);
      return { result: { outcome, approvedBy, rejectedBy }, task };
    } finally {
      this.closeDeadline(id);
      work.close();
      work.cancel();
      if (task.state === 'open') task.state = 'cancelled';
    }
  }

  private refusal(approval: Approval, by: string): string | undefined {
    if (approval.candidates.length > 0 && !approval.candidates.includes(by)) return 'not_eligible';
    if (approval.votes.some((v) => v.by === by)) return 'already_decided';
    if (this.excluded(approval).includes(by)) return 'separation_of_duties_violation';
    if (approval.mode === 'sequential') {
      const next = approval.candidates.find((c) => !approval.votes.some((v) => v.by === c) && !this.excluded(approval).includes(c));
      if (next !== undefined && next !== by) return 'not_your_turn';
    }
    return undefined;
  }

  /** Principals who must not vote, as the core computes them at decision time. */
  private excluded(approval: Approval): string[] {
    if (approval.separationOfDuties === undefined) return [];
    const value = this.evaluate(approval.separationOfDuties, approval.ctx);
    return Array.isArray(value) ? value.map(String) : [];
  }

  private tally(approval: Approval): void {
    const approvals = approval.votes.filter((v) => v.decision === 'approve').length;
    const rejections = approval.votes.length - approvals;
    const voters = Math.max(approval.candidates.length - this.excluded(approval).filter((p) => approval.candidates.includes(p)).length, approval.needed);
    const everyoneVoted = approval.votes.length >= voters;
    if (!approval.earlyDecision && !everyoneVoted) return;
    if (approvals >= approval.needed) approval.decide?.('approved');
    else if (voters - rejections < approval.needed || everyoneVoted) approval.decide?.('rejected');
  }

  private async call(call: Spec, id: string, scope: Scope, ctx: StepContext): Promise<{ result?: unknown }> {
    const input: Record<string, unknown> = {};
    if (isRecord(call.input)) for (const [name, source] of Object.entries(call.input)) input[name] = typeof source === 'string' ? this.evaluate(source, ctx) : source;
    const [group, name] = typeof call.skill === 'string' ? ['skills', call.skill] as const
      : typeof call.agent === 'string' ? ['agents', call.agent] as const : ['agents', `process:${String(call.process)}`] as const;
    const skill = group === 'skills' ? this.options.catalog.spec('Skill', name) : undefined;
    const contract = isRecord(skill?.contract) ? skill.contract : {};
    if (contract.inputs !== undefined) {
      const problem = this.options.schemas.problem(contract.inputs, input);
      if (problem !== undefined) throw new ScenarioFailure('skill_input_invalid', `step '${id}' calls ${name} with input that breaks its contract: ${problem}`, { actual: input });
    }
    if (skill !== undefined && skill.sideEffects !== undefined && skill.sideEffects !== 'none') this.sideEffects.push(name);
    const answer = this.options.mocks.answer(group, name, id, input);
    if (answer === undefined) throw new ScenarioFailure('mock_missing', `step '${id}' calls ${group === 'skills' ? 'skill' : 'agent'} ${name}, and the test has no answer for it`);
    this.record('process.call', id, { [group === 'skills' ? 'skill' : 'agent']: name, input });
    if (answer.timeout === true) {
      if (call.timeout !== undefined) await this.sleep(this.point(call.timeout, ctx), scope, id);
      throw new ProcessError({ type: 'timeout', detail: `${name} did not answer in time` });
    }
    if (answer.error !== undefined) throw new ProcessError({ ...answer.error });
    if (contract.outputs !== undefined) {
      const problem = this.options.schemas.problem(contract.outputs, answer.output);
      if (problem !== undefined) throw new ScenarioFailure('mock_output_invalid', `the mocked output of ${name} breaks the skill's output schema: ${problem}`, { path: answer.pointer, actual: answer.output });
    }
    return { result: copy(answer.output) };
  }

  private decision(decideSpec: Spec, ctx: StepContext): unknown {
    const table = list(this.spec.decisions).find((t) => t.id === decideSpec.table);
    if (table === undefined) throw new ProcessError({ type: 'unknown_decision_table', detail: `no decision table '${String(decideSpec.table)}'` });
    const inputs: Record<string, unknown> = {};
    const given = isRecord(decideSpec.input) ? decideSpec.input : {};
    for (const input of list(table.inputs)) {
      const id = String(input.id);
      const source = typeof given[id] === 'string' ? given[id] : input.expr;
      inputs[id] = typeof source === 'string' ? this.evaluateOrNull(source, ctx) : null;
    }
    const outcome = decide(table, inputs);
    if ('error' in outcome) throw new ProcessError(outcome.error);
    for (const rule of outcome.matched) this.covered.add(`${String(table.id)}#${rule + 1}`);
    return copy(outcome.result);
  }

  private async recall(recall: Spec, id: string, scope: Scope, ctx: StepContext): Promise<{ result?: unknown; skipOutput?: boolean }> {
    const query = { step: id, query: typeof recall.query === 'string' ? this.evaluateOrNull(recall.query, ctx) : null, kinds: recall.kinds ?? [] };
    const answer = this.options.mocks.answer('recall', '', id, query);
    if (answer === undefined) throw new ScenarioFailure('mock_missing', `step '${id}' recalls memory, and the test has no recall answer for it (mocks.recall)`);
    this.recalled.push(id);
    if (answer.timeout === true) {
      if (typeof recall.timeout === 'string') await this.sleep(this.clock.now + milliseconds(recall.timeout), scope, id);
      await this.runBlocks(list(recall.onTimeout), scope, ctx);
      return { skipOutput: true };
    }
    if (answer.error !== undefined) throw new ProcessError({ ...answer.error });
    return { result: copy(answer.output) };
  }

  private remember(remember: Spec, id: string, ctx: StepContext): Record<string, never> {
    const entry: Record<string, unknown> = { step: id };
    if (isRecord(remember.facts)) entry.facts = this.evaluateMap(remember.facts, ctx);
    if (isRecord(remember.entity)) {
      const entity = remember.entity;
      const out: Record<string, unknown> = { kind: entity.kind };
      for (const field of ['key', 'name', 'text'] as const) if (typeof entity[field] === 'string') out[field] = this.evaluate(entity[field], ctx);
      out.links = list(entity.links).map((link) => ({ rel: link.rel, kind: link.kind, key: typeof link.key === 'string' ? this.evaluate(link.key, ctx) : link.key }));
      entry.entity = out;
    }
    this.remembered.push(entry);
    return {};
  }

  private async listen(listen: Spec, id: string, scope: Scope, ctx: StepContext): Promise<Record<string, never>> {
    const branches = list(listen.any);
    const work = scope.child();
    if (listen.due !== undefined) this.startDeadline(id, listen.due, work, ctx, {});
    const timeoutAt = listen.timeout === undefined ? undefined : this.point(listen.timeout, ctx);
    try {
      const heard = await work.wait<{ branch: Spec; event: EngineEvent } | 'timeout'>((resolve) => {
        const listener = {
          matches: (event: EngineEvent) => branches.some((branch) => this.triggerMatches(branch.on, event, ctx)),
          deliver: (event: EngineEvent) => resolve({ branch: branches.find((branch) => this.triggerMatches(branch.on, event, ctx))!, event }),
        };
        this.listeners.add(listener);
        const cancelTimer = timeoutAt === undefined ? () => undefined : this.clock.schedule(timeoutAt, () => resolve('timeout'), { id });
        return () => {
          this.listeners.delete(listener);
          cancelTimer();
        };
      });
      this.closeDeadline(id);
      if (heard === 'timeout') {
        this.record('process.listen_timeout', id);
        await this.runBlocks(list(listen.onTimeout), scope, ctx);
      } else {
        this.record('process.event_received', id, { type: heard.event.type });
        await this.runBlocks(list(heard.branch.do), scope, { ...ctx, event: heard.event });
      }
      return {};
    } finally {
      work.cancel();
    }
  }

  private sleep(at: number, scope: Scope, id: string): Promise<void> {
    return scope.wait<void>((resolve) => this.clock.schedule(at, () => resolve(), { id }));
  }

  private async compensate(which: unknown, scope: Scope): Promise<void> {
    const ids = which === 'all' ? undefined : Array.isArray(which) ? which.map(String) : [];
    for (let i = this.compensable.length - 1; i >= 0; i--) {
      const { step, ctx } = this.compensable[i]!;
      if (ids !== undefined && !ids.includes(String(step.id))) continue;
      this.compensable.splice(i, 1);
      this.record('process.compensated', String(step.id));
      await this.runBlocks(list(step.onCompensate), scope, ctx);
    }
  }

  private async fork(fork: Spec, scope: Scope, ctx: StepContext): Promise<void> {
    const branches = list(fork.branches);
    const scopes = branches.map(() => scope.child());
    const runs = branches.map((branch, i) => this.runBlocks(list(branch.do), scopes[i]!, ctx).then(() => {
      this.covered.add(String(branch.id));
      return i;
    }));
    try {
      if (fork.mode === 'compete') {
        const winner = await Promise.race(runs);
        this.record('process.fork_won', String(branches[winner]!.id));
      } else {
        await Promise.all(runs);
      }
    } finally {
      for (const branch of scopes) branch.cancel();
      for (const run of runs) run.catch(() => undefined); // the losers unwind with Cancelled
    }
  }

  private async attempt(trySpec: Spec, scope: Scope, ctx: StepContext): Promise<void> {
    const retry = isRecord(trySpec.retry) ? trySpec.retry : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.runBlocks(list(trySpec.do), scope, ctx);
        return;
      } catch (error) {
        if (!(error instanceof ProcessError)) throw error;
        const retryable = retry !== undefined && attempt < Number(retry.limit ?? 0)
          && (!Array.isArray(retry.on) || retry.on.includes(error.problem.type));
        if (retryable) {
          this.record('process.retry', undefined, { attempt: attempt + 1, error: error.problem.type });
          const wait = retryDelay(retry, attempt);
          if (wait > 0) await this.sleep(this.clock.now + wait, scope, 'retry');
          continue;
        }
        const handler = list(trySpec.catch).find((c) => problemMatches(c.errors, error.problem));
        if (handler === undefined) throw error;
        this.record('process.error_caught', undefined, error.problem);
        const catches = typeof handler.as === 'string' ? { ...ctx.catches, [handler.as]: error.problem } : ctx.catches;
        await this.runBlocks(list(handler.do), scope, { ...ctx, catches });
        return;
      }
    }
  }

  private suspend(suspend: Spec, ctx: StepContext): void {
    if (this.status !== 'running') return;
    this.status = 'suspended';
    this.suspendedAt = this.clock.now;
    this.clock.hold();
    this.record('process.suspended', undefined, typeof suspend.reason === 'string' ? { reason: this.evaluateOrNull(suspend.reason, ctx) } : undefined);
  }

  private resume(): void {
    if (this.status !== 'suspended') return;
    this.status = 'running';
    this.clock.release(this.clock.now - (this.suspendedAt ?? this.clock.now));
    this.suspendedAt = undefined;
    this.record('process.resumed');
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const wake of waiters) wake();
  }

  private async whileSuspended(scope: Scope): Promise<void> {
    if (this.status !== 'suspended') return;
    await scope.wait<void>((resolve) => {
      this.resumeWaiters.push(resolve);
      return () => {
        this.resumeWaiters = this.resumeWaiters.filter((w) => w !== resolve);
      };
    });
  }

  // ---------------------------------------------------------------- deadlines

  private startDeadline(
    key: string, due: unknown, scope: Scope, ctx: StepContext,
    extra: { escalations?: Spec[]; task?: TaskRecord; onDue?: unknown; approval?: Approval },
  ): SlaRecord {
    let computed;
    try {
      computed = deadline(due, this.clock.now, this.dueContext(ctx));
    } catch (error) {
      if (error instanceof ProcessError || error instanceof ScenarioFailure) throw error;
      throw new ProcessError({ type: 'expression_error', detail: `the deadline of '${key}': ${(error as Error).message}` });
    }
    const record: SlaRecord = { key, due: computed.at, state: 'ok', open: true, provisional: computed.provisional };
    if (computed.warnAt !== undefined) record.warnAt = computed.warnAt;
    this.sla.set(key, record);
    const at = (when: number, id: string, fire: () => void) => scope.onEnd(this.clock.schedule(when, () => {
      if (record.open && this.isLive()) fire();
    }, { id, provisional: computed.provisional }));
    if (computed.warnAt !== undefined) {
      at(computed.warnAt, `${key}.warning`, () => {
        if (record.state === 'ok') record.state = 'warning';
        this.record('process.sla_warning', key);
      });
    }
    at(computed.at, `${key}.due`, () => {
      record.state = 'breached';
      this.record('process.sla_breached', key);
      if (extra.approval !== undefined && (extra.onDue === 'approve' || extra.onDue === 'reject')) {
        extra.approval.decide?.(extra.onDue === 'approve' ? 'approved' : 'rejected');
      } else if (extra.onDue === 'escalate') {
        this.record('process.escalated', key, { action: 'escalate' });
      }
    });
    (extra.escalations ?? []).forEach((escalation, i) => {
      const when = escalation.after === 'due' ? computed.at : pointOf(escalation.after, computed.at, { evaluate: (source) => this.evaluate(source, ctx) });
      at(when, `${key}.escalation.${i + 1}`, () => this.escalate(key, escalation, ctx, extra.task));
    });
    return record;
  }

  private closeDeadline(key: string): void {
    const record = this.sla.get(key);
    if (record !== undefined) record.open = false;
  }

  private escalate(key: string, escalation: Spec, ctx: StepContext, task: TaskRecord | undefined): void {
    const action = String(escalation.action);
    this.record('process.escalated', key, { action });
    if (action === 'reassign' && task !== undefined && escalation.to !== undefined) {
      const assignment = this.assignment(escalation.to, ctx);
      task.assignee = assignment.assignee;
      task.candidates = assignment.candidates;
      if (assignment.via !== undefined) task.via = assignment.via;
    }
    if (action === 'raise' && task?.fail !== undefined) {
      task.fail(new ProcessError(isRecord(escalation.error) ? this.problemOf(escalation.error, ctx) : { type: 'escalation' }));
    }
  }

  private dueContext(ctx: StepContext): DueContext {
    return {
      evaluate: (source) => this.evaluate(source, ctx),
      calendar: (key) => this.calendar(key),
      ...(this.defaultCalendar !== undefined ? { defaultCalendar: this.defaultCalendar } : {}),
    };
  }

  private calendar(key: string | undefined): SandboxCalendar {
    if (key === undefined) throw new ProcessError({ type: 'unknown_calendar', detail: 'working units need a calendar: set spec.calendar of the process or calendar of the deadline' });
    const calendar = this.options.catalog.calendar(key);
    if (calendar === undefined) throw new ProcessError({ type: 'unknown_calendar', detail: `no calendar '${key}'` });
    return calendar;
  }

  private point(value: unknown, ctx: StepContext): number {
    try {
      return pointOf(value, this.clock.now, { evaluate: (source) => this.evaluate(source, ctx) });
    } catch (error) {
      if (error instanceof ProcessError) throw error;
      throw new ProcessError({ type: 'expression_error', detail: (error as Error).message });
    }
  }

  // ---------------------------------------------------------------- tasks and people

  private createTask(step: string, kind: TaskRecord['kind'], taskType: string, assignment: Assignment, customFields: Record<string, unknown>): TaskRecord {
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
  private assignment(chain: unknown, ctx: StepContext): Assignment {
    for (const entry of list(chain)) {
      let target: string | undefined;
      if (typeof entry.principal === 'string') target = this.substitute(entry.principal);
      else if (typeof entry.role === 'string') target = `role:${entry.role}`;
      else if (typeof entry.agent === 'string') target = `agent:${entry.agent}`;
      else if (typeof entry.expr === 'string') {
        const value = this.evaluateOrNull(entry.expr, ctx);
        target = typeof value === 'string' && value !== '' ? value : undefined;
      }
      if (target === undefined) continue;
      if (!target.startsWith('role:')) return { assignee: target, candidates: [target] };
      const members = this.options.given.principals?.[target.slice(5)] ?? [];
      // A role entry with one test principal is that person's task; an expression naming a role keeps the role.
      const assignee = typeof entry.role === 'string' && members.length === 1 ? members[0]! : target;
      return { assignee, via: target, candidates: [...members] };
    }
    return { candidates: [] };
  }

  private openTask(step: string, kind: TaskRecord['kind']): TaskRecord {
    const task = [...this.tasks].reverse().find((t) => t.step === step && t.kind === kind && t.state === 'open');
    if (task === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open task${this.openSummary()}`);
    return task;
  }

  private openSummary(): string {
    const open = this.tasks.filter((t) => t.state === 'open').map((t) => t.step);
    const state = this.status === 'running' ? '' : ` (the instance is ${this.status}${this.error ? `: ${this.error.type}${this.error.detail ? ` — ${this.error.detail}` : ''}` : ''})`;
    return open.length > 0 ? `; open: ${open.join(', ')}${state}` : `; nothing is open${state}`;
  }

  private lifecycleStatus(taskType: string, category?: string, field?: string): string | undefined {
    const lifecycle = this.options.catalog.spec('TaskType', taskType)?.lifecycleSchema;
    if (!isRecord(lifecycle)) return undefined;
    if (field !== undefined && typeof lifecycle[field] === 'string') return lifecycle[field];
    return list(lifecycle.statuses).find((s) => s.category === category)?.key as string | undefined;
  }

  private formSchema(step: string): unknown {
    const found = this.findStep(step);
    return isRecord(found?.human) && isRecord(found.human.form) ? found.human.form.schema : undefined;
  }

  private findStep(id: string): Spec | undefined {
    return allSteps(this.spec).find((step) => step.id === id);
  }

  // ---------------------------------------------------------------- expressions and data

  private assign(mapping: Record<string, unknown>, ctx: StepContext, owner: string, result?: unknown): void {
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

  private evaluateMap(mapping: Record<string, unknown>, ctx: StepContext): Record<string, unknown> {
    return Object.fromEntries(Object.entries(mapping).map(([name, source]) => [name, typeof source === 'string' ? this.evaluate(source, ctx) : source]));
  }

  private problemOf(spec: Spec, ctx: StepContext): Problem {
    const problem: Problem = { type: String(spec.type) };
    if (typeof spec.status === 'number') problem.status = spec.status;
    if (typeof spec.detail === 'string') problem.detail = String(this.evaluateOrNull(spec.detail, ctx));
    return problem;
  }

  private evaluateOrNull(source: string, ctx: StepContext): unknown {
    try {
      return this.evaluate(source, ctx);
    } catch (error) {
      if (error instanceof ProcessError) return null;
      throw error;
    }
  }

  /** The value of a process expression; a broken one is the process error the core would raise. */
  evaluate(source: string, ctx: StepContext, result?: unknown): unknown {
    const names = Object.keys(ctx.catches);
    const env = this.environment(names);
    const bindings: Record<string, unknown> = {
      data: this.data,
      settings: this.settings,
      stage: Object.fromEntries(this.stages.map((s) => [s.id, { completed: s.state === 'completed', active: s.state === 'open' }])),
      milestone: Object.fromEntries(this.stages.flatMap((s) => list(s.spec.milestones)).map((m) => [String(m.id), this.milestones.has(String(m.id))])),
      instance: { id: 'instance-1', key: this.key ?? '', version: typeof this.spec.version === 'number' ? this.spec.version : 1, startedAt: this.clock.iso(this.startedAt), clock: this.clock.iso() },
      step: { result: result ?? null },
      ...ctx.catches,
    };
    if (ctx.event !== undefined) bindings.event = ctx.event;
    if (ctx.task !== undefined) bindings.task = { id: ctx.task.id, assigneeId: ctx.task.completedBy ?? ctx.task.assignee ?? '', customFields: ctx.task.customFields };
    try {
      return evaluate(env, source, bindings, {
        variables: this.options.variables,
        calendars: (key) => this.options.catalog.calendar(key),
        ...(this.defaultCalendar !== undefined ? { defaultCalendar: this.defaultCalendar } : {}),
      });
    } catch (error) {
      if (error instanceof CelEvaluationError) throw new ProcessError({ type: error.code, detail: `${source}: ${error.message}` });
      throw error;
    }
  }

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

  private substitute(text: string): string {
    return text.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name: string) => this.options.catalog.variableValue(this.options.variables, name) ?? whole);
  }

  private triggerMatches(trigger: unknown, event: EngineEvent, ctx: StepContext = NO_CONTEXT): boolean {
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

  private record(type: string, step?: string, detail?: unknown): void {
    this.events.push({ type, at: this.clock.iso(), ...(step !== undefined ? { step } : {}), ...(detail !== undefined ? { detail } : {}) });
  }
}

interface Assignment {
  assignee?: string;
  via?: string;
  candidates: string[];
}

function list(value: unknown): Spec[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function quorumNeeded(quorum: unknown, candidates: number): number {
  if (quorum === 'all') return Math.max(candidates, 1);
  if (isRecord(quorum) && typeof quorum.atLeast === 'number') return quorum.atLeast;
  if (isRecord(quorum) && typeof quorum.percent === 'number') return Math.max(1, Math.ceil((candidates * quorum.percent) / 100));
  return 1;
}

function retryDelay(retry: Spec, attempt: number): number {
  const base = typeof retry.delay === 'string' ? milliseconds(retry.delay) : 0;
  const grown = retry.backoff === 'exponential' ? base * 2 ** attempt : base;
  return typeof retry.maxDelay === 'string' ? Math.min(grown, milliseconds(retry.maxDelay)) : grown;
}

function problemMatches(errors: unknown, problem: Problem): boolean {
  if (!isRecord(errors)) return true;
  if (typeof errors.type === 'string' && errors.type !== problem.type) return false;
  if (typeof errors.status === 'number' && errors.status !== problem.status) return false;
  return true;
}

/** Every step of a process, nested ones included, in document order. */
export function allSteps(spec: Spec): Spec[] {
  const out: Spec[] = [];
  const visit = (steps: unknown): void => {
    for (const step of list(steps)) {
      out.push(step);
      visit(step.do);
      visit(step.onCompensate);
      for (const kind of ['try', 'listen', 'recall', 'fork'] as const) {
        const body = isRecord(step[kind]) ? step[kind] : undefined;
        if (body === undefined) continue;
        visit(body.do);
        visit(body.onTimeout);
        for (const part of [...list(body.catch), ...list(body.any), ...list(body.branches)]) visit(part.do);
      }
    }
  };
  for (const stage of list(spec.stages)) {
    visit(stage.steps);
    visit(stage.discretionary);
    for (const timer of list(stage.timers)) visit(timer.do);
  }
  for (const timer of list(spec.timers)) visit(timer.do);
  for (const handler of [...list(spec.onEvent), ...list(spec.correlate)]) visit(handler.do);
  return out;
}

/** The elements coverage counts: stages, milestones, timers, fork branches and steps. */
export function processElements(spec: Spec): string[] {
  const ids: string[] = [];
  for (const stage of list(spec.stages)) {
    ids.push(String(stage.id));
    for (const part of [...list(stage.milestones), ...list(stage.timers)]) ids.push(String(part.id));
  }
  for (const timer of list(spec.timers)) ids.push(String(timer.id));
  for (const step of allSteps(spec)) {
    ids.push(String(step.id));
    if (isRecord(step.fork)) for (const branch of list(step.fork.branches)) ids.push(String(branch.id));
  }
  return [...new Set(ids)];
}

