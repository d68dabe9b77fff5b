/**
 * The stages of an instance and its boundary timers. A stage opens when its entry guard holds (at once without
 * one), runs its steps, reaches its milestones as their guards come true, and completes when its steps are done
 * and its exit guard holds; a repeatable stage opens again once its entry guard was false after it completed.
 * The instance completes when no stage is open and none can open. A boundary timer fires while its stage (or the
 * process) is open; an interrupting one cancels the stage's work, runs its own block and completes the stage.
 */
import type { Timer } from '../process/index.js';
import { Cancelled, type Scope } from './clock.js';
import { pointOf } from './due.js';
import type { Flow } from './flow.js';
import { NO_CONTEXT, ProcessError, type ProcessInstance, type StageRun } from './instance.js';

export class Stages {
  /** Guards are being read: a change they cause is picked up by the same loop, not by a nested one. */
  private evaluating = false;

  constructor(
    private readonly instance: ProcessInstance,
    private readonly flow: Flow,
  ) {}

  /** Reads the guards after any change: milestones, exits, entries, and the end of an instance with nothing left to do. */
  reevaluate(): void {
    const instance = this.instance;
    if (this.evaluating || !instance.isLive()) return;
    this.evaluating = true;
    try {
      let changed = true;
      while (changed && instance.isLive()) {
        changed = false;
        for (const stage of instance.stages) {
          if (stage.state === 'open') changed = this.progress(stage) || changed;
          else if (stage.state === 'not_started' || (stage.state === 'completed' && stage.stage.repeatable)) changed = this.enter(stage) || changed;
        }
      }
      if (instance.isLive() && !instance.stages.some((stage) => stage.state === 'open')) instance.completeInstance(undefined);
    } finally {
      this.evaluating = false;
    }
  }

  /** An open stage reaches the milestones whose guards hold, and completes once its steps are done and its exit holds. */
  private progress(stage: StageRun): boolean {
    let changed = false;
    for (const milestone of stage.stage.milestones) {
      if (this.instance.milestones.has(milestone.id) || !this.guard(milestone.when)) continue;
      this.instance.milestones.add(milestone.id);
      this.instance.covered.add(milestone.id);
      this.instance.record('process.milestone_reached', milestone.id);
      changed = true;
    }
    if (stage.stepsDone && this.guard(stage.stage.exit)) {
      this.finish(stage);
      changed = true;
    }
    return changed;
  }

  /** A stage not started (or a repeatable one, completed) opens when its entry guard holds. */
  private enter(stage: StageRun): boolean {
    const entry = stage.stage.entry === undefined ? stage.state === 'not_started' : this.guard(stage.stage.entry);
    if (stage.state === 'completed' && !entry) stage.rearmed = true;
    if (!entry || (stage.state !== 'not_started' && !stage.rearmed)) return false;
    this.open(stage);
    return true;
  }

  open(stage: StageRun): void {
    const instance = this.instance;
    stage.state = 'open';
    stage.rearmed = false;
    stage.interrupted = false;
    stage.stepsDone = false;
    instance.covered.add(stage.stage.id);
    instance.record('process.stage_entered', stage.stage.id);
    const scope = instance.root.child();
    stage.scope = scope;
    for (const timer of stage.stage.timers) this.armTimer(timer, scope, stage);
    const steps = scope.child();
    instance.spawn(async () => {
      try {
        await this.flow.run(stage.stage.steps.steps, steps, NO_CONTEXT);
      } catch (error) {
        if (!(error instanceof Cancelled)) throw error;
        return;
      }
      if (stage.interrupted) return;
      stage.stepsDone = true;
      if (this.guard(stage.stage.exit)) this.finish(stage);
      else this.reevaluate();
    });
  }

  private finish(stage: StageRun): void {
    if (stage.state !== 'open') return;
    stage.state = 'completed';
    stage.scope?.cancel();
    this.instance.record('process.stage_completed', stage.stage.id);
    this.reevaluate();
  }

  /** A boundary timer of a stage (or of the process, without `stage`) that fires while its owner is open. */
  armTimer(timer: Timer, scope: Scope, stage: StageRun | undefined): void {
    const instance = this.instance;
    let at: number;
    try {
      at = pointOf(timer.at, instance.clock.now, { evaluate: (source) => instance.evaluate(source, NO_CONTEXT) });
    } catch (error) {
      instance.fail(new ProcessError({ type: 'expression_error', detail: `timer '${timer.id}': ${(error as Error).message}` }));
      return;
    }
    const cancel = instance.clock.schedule(at, () => {
      if (!instance.isLive()) return;
      instance.covered.add(timer.id);
      instance.record('process.timer_fired', timer.id);
      if (timer.interrupting && stage !== undefined) this.interrupt(stage, timer);
      else instance.spawn(() => this.flow.run(timer.do.steps, scope.child(), NO_CONTEXT));
    }, { id: timer.id });
    scope.onEnd(cancel);
  }

  /** An interrupting timer cancels the stage's work, runs its own block, then completes the stage. */
  private interrupt(stage: StageRun, timer: Timer): void {
    stage.interrupted = true;
    stage.scope?.cancel();
    this.instance.spawn(async () => {
      await this.flow.run(timer.do.steps, this.instance.root.child(), NO_CONTEXT);
      stage.interrupted = false;
      stage.state = 'open';
      this.finish(stage);
    });
  }

  /** A guard holds; none holds always, and one that reads a field not yet set does not hold yet. */
  private guard(source: string | undefined): boolean {
    if (source === undefined) return true;
    try {
      return this.instance.evaluate(source, NO_CONTEXT) === true;
    } catch {
      return false;
    }
  }
}
