/**
 * The process engine of package tests: one instance of a `Process` in virtual time, driven by a scenario
 * (emit, advance, complete, approve, settings) and inspected by its expectations.
 *
 * Stages open when their entry guard holds (at once without one), run their steps in order and complete when
 * the steps are done and the exit guard (a completion condition) holds; the instance completes at a `complete` step, or when no stage is
 * open and none can open. Steps that wait (human, approve, listen, wait, retries) are awaits on the engine's
 * own promises, so a fork is `Promise.all`/`race`, a try is try/catch, and cancelling a scope unwinds
 * whatever it started (see clock.ts).
 *
 * The parts: instance.ts (the state and the services steps share), flow.ts (running blocks of steps), steps/
 * (one handler per step kind), stages.ts (stages and boundary timers), deadlines.ts (SLA and escalations).
 */
import { settle, type VirtualClock } from './clock.js';
import { startDeadline } from './deadlines.js';
import { Flow } from './flow.js';
import {
  NO_CONTEXT, ProcessInstance,
  type EngineEvent, type EngineOptions, type Problem, type RecordedEvent, type StageState, type StepContext, type TaskRecord,
} from './instance.js';
import { ScenarioFailure } from './result.js';
import { Stages } from './stages.js';
import { tally, voteRefusal } from './steps/approve.js';
import { closeTask, formSchema } from './steps/human.js';
import { copy } from './values.js';

export type { EngineEvent, TaskRecord } from './instance.js';

export class ProcessRun {
  private readonly instance: ProcessInstance;
  private readonly flow: Flow;
  private readonly stages: Stages;

  constructor(options: EngineOptions) {
    this.instance = new ProcessInstance(options);
    this.flow = new Flow(this.instance, () => this.stages.reevaluate());
    this.stages = new Stages(this.instance, this.flow);
  }

  // ---------------------------------------------------------------- what a scenario reads

  get clock(): VirtualClock {
    return this.instance.clock;
  }

  get status(): ProcessInstance['status'] {
    return this.instance.status;
  }

  get outcome(): string | undefined {
    return this.instance.outcome;
  }

  get error(): Problem | undefined {
    return this.instance.error;
  }

  get data(): Record<string, unknown> {
    return this.instance.data;
  }

  get settings(): Record<string, unknown> {
    return this.instance.settings;
  }

  get milestones(): ReadonlySet<string> {
    return this.instance.milestones;
  }

  get tasks(): readonly TaskRecord[] {
    return this.instance.tasks;
  }

  get events(): readonly RecordedEvent[] {
    return this.instance.events;
  }

  get recalled(): readonly string[] {
    return this.instance.recalled;
  }

  get remembered(): readonly Record<string, unknown>[] {
    return this.instance.remembered;
  }

  /** Skills with side effects (`sideEffects` other than none) the scenario called. */
  get sideEffects(): readonly string[] {
    return this.instance.sideEffects;
  }

  /** The elements the instance reached (stages, milestones, timers, steps, fork branches, decision rules). */
  get covered(): ReadonlySet<string> {
    return this.instance.covered;
  }

  /** The first thing that makes the scenario itself wrong (a missing mock, output that breaks a schema). */
  get fatal(): ScenarioFailure | undefined {
    return this.instance.fatal;
  }

  stageState(id: string): StageState | undefined {
    return this.instance.stages.find((stage) => stage.stage.id === id)?.state;
  }

  slaState(key: string): 'ok' | 'warning' | 'breached' | 'paused' | undefined {
    const record = this.instance.sla.get(key);
    if (record === undefined) return undefined;
    return this.instance.status === 'suspended' && record.open ? 'paused' : record.state;
  }

  timers(): { id: string; at: string; provisional: boolean }[] {
    const clock = this.instance.clock;
    return clock.pending().filter((t) => t.id !== undefined).map((t) => ({ id: t.id!, at: clock.iso(t.at), provisional: t.provisional }));
  }

  // ---------------------------------------------------------------- driving

  /** Starts the instance from `given.data` (a scenario without a start event). */
  async startFromGiven(): Promise<void> {
    this.begin(undefined, copy(this.instance.options.given.data ?? {}));
    await settle();
  }

  async emit(event: EngineEvent): Promise<void> {
    const instance = this.instance;
    if (instance.status === 'not_started') {
      if (instance.triggerMatches(instance.model.start?.on, event)) this.begin(event, copy(instance.options.given.data ?? {}));
    } else if (instance.isLive()) {
      this.correlate(event);
      for (const handler of instance.model.onEvent) {
        if (instance.triggerMatches(handler.on, event)) instance.spawn(() => this.flow.run(handler.do?.steps ?? [], instance.root.child(), { ...NO_CONTEXT, event }));
      }
      for (const listener of [...instance.listeners]) if (listener.matches(event)) listener.deliver(event);
    }
    await settle();
  }

  async advance(milliseconds: number): Promise<void> {
    await this.instance.clock.advanceTo(this.instance.clock.now + milliseconds, settle);
  }

  async advanceUntil(timerId: string): Promise<boolean> {
    const timer = this.instance.clock.pending().find((t) => t.id === timerId);
    if (timer === undefined) return false;
    await this.instance.clock.advanceTo(timer.at, settle);
    return true;
  }

  /** Completes (or cancels) the latest open task of a step. */
  async complete(step: string, by: string | undefined, output: Record<string, unknown> | undefined, cancel: boolean): Promise<void> {
    const task = this.instance.openTask(step, 'human');
    if (by !== undefined && task.candidates.length > 0 && !task.candidates.includes(by)) {
      throw new ScenarioFailure('not_assignee', `${by} may not complete the task of step '${step}': it is assigned to ${task.assignee ?? 'nobody'} (${task.candidates.join(', ')})`);
    }
    if (!cancel) {
      const form = formSchema(this.instance, step);
      const problem = form === undefined ? undefined : this.instance.options.schemas.problem(form, output ?? {});
      if (problem !== undefined) throw new ScenarioFailure('output_invalid', `the output does not match the form of step '${step}': ${problem}`);
    }
    await closeTask(this.instance, task, cancel, by, output);
  }

  /**
   * A work rule closes the task an observation is bound to (`action.target: task`). The rule acts with its own
   * authority and gives no form data, so neither the assignment nor the form is checked; the step's output is `{}`.
   */
  async closeByRule(task: TaskRecord, cancel: boolean, by: string | undefined): Promise<void> {
    await closeTask(this.instance, task, cancel, by, {});
  }

  /** A vote on an open approval; answers the core's refusal code when it would refuse it. */
  async approve(step: string, by: string, decision: 'approve' | 'reject'): Promise<string | undefined> {
    const approval = this.instance.approvals.find((a) => a.step === step && a.decide !== undefined);
    if (approval === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open approval${this.instance.openSummary()}`);
    const refusal = voteRefusal(this.instance, approval, by);
    if (refusal !== undefined) return refusal;
    approval.votes.push({ by, decision });
    this.instance.record('process.approval_vote', step, { by, decision });
    tally(this.instance, approval);
    await settle();
    return undefined;
  }

  async saveSettings(values: Record<string, unknown>): Promise<void> {
    this.instance.settings = this.instance.options.catalog.settingsWith(values);
    this.stages.reevaluate();
    await settle();
  }

  // ---------------------------------------------------------------- lifecycle

  /** The instance starts: its key and start data, the process deadline and timers, the given stage, the first guards. */
  private begin(event: EngineEvent | undefined, data: Record<string, unknown>): void {
    const instance = this.instance;
    instance.status = 'running';
    instance.startedAt = instance.clock.now;
    instance.data = data;
    const start = instance.model.start;
    const ctx: StepContext = { ...NO_CONTEXT, ...(event ? { event } : {}) };
    try {
      instance.key = event !== undefined && start?.key !== undefined ? String(instance.evaluate(start.key, ctx)) : 'instance';
      if (event !== undefined && start?.set !== undefined) instance.assign(start.set, ctx, 'start');
    } catch (error) {
      instance.fail(error);
      return;
    }
    instance.record('process.started');
    if (instance.model.spec.due !== undefined) startDeadline(instance, 'process', instance.model.spec.due, instance.root, ctx, {});
    for (const timer of instance.model.timers) this.stages.armTimer(timer, instance.root, undefined);
    this.openGivenStage();
    this.stages.reevaluate();
  }

  /** `given.stage`: the scenario starts with that stage open. */
  private openGivenStage(): void {
    const given = this.instance.options.given.stage;
    if (given === undefined) return;
    const stage = this.instance.stages.find((s) => s.stage.id === given);
    if (stage === undefined) throw new ScenarioFailure('unknown_stage', `given.stage '${given}' is not a stage of process '${this.instance.options.process.key}'`);
    this.stages.open(stage);
  }

  /** An event for this instance (its `key` matches) updates the data and runs the correlation's block. */
  private correlate(event: EngineEvent): void {
    const instance = this.instance;
    for (const entry of instance.model.correlate) {
      if (!instance.triggerMatches(entry.on, event)) continue;
      const ctx = { ...NO_CONTEXT, event };
      try {
        if (entry.key !== undefined && String(instance.evaluate(entry.key, ctx)) !== instance.key) continue;
        if (entry.set !== undefined) instance.assign(entry.set, ctx, 'correlate');
      } catch (error) {
        instance.fail(error);
        return;
      }
      instance.record('process.correlated');
      instance.spawn(() => this.flow.run(entry.do?.steps ?? [], instance.root.child(), ctx));
      this.stages.reevaluate();
    }
  }
}
