/**
 * The process engine of package tests, as the core's engine works: inputs — a start, an event, an answer of
 * the world, a timer — come one at a time; after each, the drive loop runs every runnable thread (in creation
 * order) until it waits or ends and then passes over the case (stages.ts), until nothing moves; then the data
 * changes of the input are flushed (timers that read changed fields are computed again,
 * `process.data_changed`), and the instance completes when it is running with no thread left and every stage
 * completed. The application's `process.step_entered` / `process.step_exited` follow for the waiting steps
 * whose activity appeared or went away in the input.
 *
 * The parts: instance.ts (the state), threads.ts (running steps), steps/ (one handler per kind), stages.ts (the
 * case and boundary timers), deadlines.ts (SLA and escalations), world.ts (the sandbox around the instances).
 */
import { startDeadline } from './deadlines.js';
import {
  NO_CATCHES, ProcessError, ProcessInstance,
  type Activity, type Answer, type EngineEvent, type ExitCause, type Problem, type TimerRecord, type World,
} from './instance.js';
import type { PackageObject } from '../model/package.js';
import type { Coverage } from './coverage.js';
import { Stages } from './stages.js';
import type { InstanceControl } from './steps/handler.js';
import { Runner } from './threads.js';
import { triggerMatches } from './triggers.js';
import { changedPaths, copy } from './values.js';

/** How many changed leaf paths one `process.data_changed` lists. */
const CHANGED_FIELDS_SHOWN = 200;

export class ProcessEngine implements InstanceControl {
  readonly instance: ProcessInstance;
  private readonly runner: Runner;
  private readonly stages: Stages;
  /** Answers to paused work, replayed in order on resume. */
  private deferred: (() => void)[] = [];
  private closeReported = false;

  constructor(world: World, process: PackageObject, id: string, coverage: Coverage, parent?: Activity) {
    this.instance = new ProcessInstance(world, process, id, coverage, parent);
    this.runner = new Runner(this.instance, this);
    this.stages = new Stages(this.instance, this.runner, this);
  }

  // ---------------------------------------------------------------- inputs

  /**
   * The key an event starts an instance with, when the event is this process's start trigger: `start.key`
   * evaluated on it (integral numbers as integers, then text). Null, a boolean, an empty key or an error: it
   * is not the trigger.
   */
  startKey(event: EngineEvent): string | undefined {
    const start = this.instance.model.start;
    if (start === undefined || !triggerMatches(this.instance, start.on, event)) return undefined;
    if (start.key === undefined) return undefined;
    let key: unknown;
    try {
      key = this.instance.evaluate(start.key, { event }, '/spec/start/key');
    } catch (error) {
      if (error instanceof ProcessError) return undefined;
      throw error;
    }
    if (typeof key === 'number') return String(key);
    return typeof key === 'string' && key !== '' ? key : undefined;
  }

  /**
   * The first input: an event start runs `start.set` (an error fails the instance right after it started); an
   * explicit start (`given.data`, a parent's call) gives the data as it is. Then `process.started`, the process
   * timers and the process deadline.
   */
  start(key: string, data: Record<string, unknown>, event?: EngineEvent): void {
    const instance = this.instance;
    this.input(() => {
      instance.key = key;
      instance.data = data;
      const set = instance.model.start?.set;
      let failure: Problem | undefined;
      if (event !== undefined && set !== undefined) {
        try {
          instance.assign(set, { event }, '/spec/start/set');
        } catch (error) {
          if (!(error instanceof ProcessError)) throw error;
          failure = error.problem;
        }
      }
      instance.takeDataChanges();
      instance.emit('started', undefined, { trigger: event === undefined ? 'command' : event.kind });
      if (failure !== undefined) return this.fail(failure);
      for (const timer of instance.model.timers) this.stages.armTimer(timer, []);
      if (instance.model.spec.due !== undefined) startDeadline(instance, { key: 'process', due: instance.model.spec.due, bindings: event ? { event } : {}, pausable: false });
    });
  }

  /**
   * An event for the instance: the first correlation whose trigger matches and whose key is the instance's,
   * then every matching `onEvent`, then the waiting listens (oldest first). A repeat of the start event only
   * correlates — `process.correlated` even when no correlation matches.
   */
  event(event: EngineEvent, repeatOfStart = false): void {
    const instance = this.instance;
    this.input(() => {
      const correlated = this.correlate(event);
      if (repeatOfStart) {
        if (!correlated) instance.emit('correlated', undefined, { changedFields: [] });
        return;
      }
      instance.model.onEvent.forEach((handler, index) => {
        if (!triggerMatches(instance, handler.on, event)) return;
        instance.coverage.transition(`onEvent/${index}`);
        this.runner.spawn({ kind: 'process' }, handler.do?.steps ?? [], NO_CATCHES, event);
      });
      for (const activity of [...instance.activities]) {
        if (activity.hear === undefined) continue;
        if (this.paused(activity)) this.deferred.push(() => activity.open && activity.hear?.(event));
        else activity.hear(event);
      }
    });
  }

  private correlate(event: EngineEvent): boolean {
    const instance = this.instance;
    const index = instance.model.correlate.findIndex((entry) => triggerMatches(instance, entry.on, event) && this.keyMatches(entry.key, event));
    if (index < 0) return false;
    const entry = instance.model.correlate[index]!;
    instance.coverage.transition(`correlate/${index}`);
    const before = copy(instance.data);
    if (entry.set !== undefined) instance.assign(entry.set, { event }, `${entry.pointer}/set`);
    instance.emit('correlated', undefined, { changedFields: changedPaths(before, instance.data) });
    if (entry.do !== undefined) this.runner.spawn({ kind: 'process' }, entry.do.steps, NO_CATCHES, event);
    return true;
  }

  private keyMatches(source: string | undefined, event: EngineEvent): boolean {
    if (source === undefined) return true;
    try {
      const key = this.instance.evaluate(source, { event }, 'correlate/key');
      return key !== null && String(key) === this.instance.key;
    } catch (error) {
      if (error instanceof ProcessError) return false;
      throw error;
    }
  }

  /** A timer of the instance is due. */
  fireTimer(timer: TimerRecord): void {
    this.input(() => {
      if (!this.instance.timers.delete(timer)) return;
      timer.fire();
    });
  }

  /** The world answers an activity (a task closed, an approval decided, a skill's result, a child's end). */
  answer(activity: Activity, answer: Answer): void {
    this.input(() => this.deliver(activity, () => activity.onAnswer?.(answer)));
  }

  /** Anything else the world does to the instance as an input of its own (a refused intent, a vote). */
  input(apply: () => void): void {
    const instance = this.instance;
    if (!instance.isLive()) return;
    instance.beginInput();
    try {
      apply();
      this.drive();
    } catch (error) {
      if (!(error instanceof ProcessError)) throw error;
      this.fail(error.problem);
    }
    this.finishInput();
  }

  private deliver(activity: Activity, apply: () => void): void {
    if (!activity.open) return;
    if (this.paused(activity)) this.deferred.push(() => this.deliver(activity, apply));
    else apply();
  }

  /** Work of a stage waits while the instance is suspended. */
  private paused(activity: Activity): boolean {
    return this.instance.status === 'suspended' && activity.thread.scope.kind === 'stage';
  }

  private drive(): void {
    const instance = this.instance;
    for (;;) {
      let moved = false;
      for (let i = 0; i < instance.threads.length; i++) {
        const thread = instance.threads[i]!;
        if (!this.runner.runnable(thread)) continue;
        this.runner.run(thread);
        moved = true;
        if (!instance.isLive()) return;
      }
      this.runner.compact();
      if (this.stages.pass()) moved = true;
      if (!instance.isLive() || !moved) return;
    }
  }

  private finishInput(): void {
    const instance = this.instance;
    if (instance.isLive()) {
      this.flushData();
      const done = instance.status === 'running' && instance.threads.length === 0 && instance.stages.every((run) => run.state === 'completed');
      if (done) this.close('completed', 'completed', () => {
        instance.outcome = 'completed';
      });
    }
    this.reportSteps();
    if (!instance.isLive() && !this.closeReported) {
      this.closeReported = true;
      instance.world.closed(instance);
    }
  }

  /** The data changes of the input: timers computed from changed fields are computed again, then `process.data_changed`. */
  private flushData(): void {
    const instance = this.instance;
    const changed = instance.takeDataChanges();
    if (changed.length === 0) return;
    for (const timer of instance.timers) {
      if (timer.recompute === undefined || timer.remaining !== undefined || !timer.recompute.reads.some((read) => changed.some((path) => overlaps(read, path)))) continue;
      let at: number;
      try {
        at = timer.recompute.at();
      } catch (error) {
        if (error instanceof ProcessError) continue;
        throw error;
      }
      if (at === timer.at) continue;
      timer.at = at;
      instance.emit('timer_rescheduled', timer.element, { cause: 'data_changed', dueAt: instance.iso(at) });
    }
    instance.emit('data_changed', undefined, { changedFields: changed.slice(0, CHANGED_FIELDS_SHOWN) });
  }

  /** `process.step_entered` for waiting steps whose activity opened in the input, `step_exited` for those that closed. */
  private reportSteps(): void {
    const instance = this.instance;
    for (const activity of instance.activities) {
      if (activity.reported && activity.openedSeq === instance.seq) instance.emit('step_entered', activity.step.id);
    }
    for (const activity of instance.closedActivities) {
      if (activity.reported && activity.openedSeq < instance.seq) instance.emit('step_exited', activity.step.id, { outcome: activity.outcome ?? 'completed' });
    }
  }

  // ---------------------------------------------------------------- the instance as a whole

  completeInstance(outcome: string | undefined): void {
    if (!this.instance.isLive()) return;
    this.flushData();
    this.close('completed', 'completed', () => {
      if (outcome !== undefined) this.instance.outcome = outcome;
    });
  }

  fail(problem: Problem): void {
    this.close('failed', 'failed', () => {
      this.instance.error = problem;
    });
  }

  /** The operator's cancel (here: a parent whose call step ended cancels its child). */
  cancel(): void {
    this.input(() => this.close('cancelled', 'cancelled', () => undefined));
  }

  private close(status: 'completed' | 'failed' | 'cancelled', cause: ExitCause, record: () => void): void {
    const instance = this.instance;
    if (!instance.isLive()) return;
    instance.terminate(cause);
    instance.status = status;
    record();
    const detail = status === 'completed' ? (instance.outcome !== undefined ? { outcome: instance.outcome } : undefined) : status === 'failed' ? { ...instance.error } : undefined;
    instance.emit(status, undefined, detail);
  }

  suspend(reason: unknown): void {
    const instance = this.instance;
    if (instance.status !== 'running') return;
    instance.status = 'suspended';
    for (const timer of instance.timers) if (timer.pausable) timer.remaining = Math.max(0, timer.at - instance.now);
    instance.emit('suspended', undefined, reason === undefined || reason === null ? undefined : { reason });
  }

  resume(): void {
    const instance = this.instance;
    if (instance.status !== 'suspended') return;
    instance.status = 'running';
    instance.emit('resumed');
    for (const timer of instance.timers) {
      if (timer.remaining === undefined) continue;
      timer.at = timer.recompute !== undefined ? recomputed(timer) : instance.now + timer.remaining;
      delete timer.remaining;
      timer.moved?.(timer.at);
      instance.emit('timer_rescheduled', timer.element, { cause: 'resumed', dueAt: instance.iso(timer.at) });
    }
    const deferred = this.deferred;
    this.deferred = [];
    for (const replay of deferred) replay();
  }
}

/** A data-driven timer computed again on resume; one that no longer computes keeps its moment. */
function recomputed(timer: TimerRecord): number {
  try {
    return timer.recompute!.at();
  } catch {
    return timer.at;
  }
}

/** Whether a read path and a changed path touch: the same, or one inside the other (`''` is the whole data). */
function overlaps(read: string, changed: string): boolean {
  return read === '' || read === changed || changed.startsWith(`${read}.`) || read.startsWith(`${changed}.`);
}
