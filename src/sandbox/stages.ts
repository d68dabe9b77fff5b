/**
 * The case: stages, milestones and their guards, as the core's engine passes over them after its threads have
 * run — stages in declaration order, each once per pass:
 *
 * * an active stage's milestones follow their guards (reached when it turns true, lost when it turns false
 *   again; at most one flip each per input); then, with an `exit` guard that holds, the stage exits at once —
 *   its threads end and their open work is cancelled; without `exit`, it exits when no thread of it is left.
 *   A stage with an `exit` guard does not complete when its steps are done;
 * * a stage not active enters when it is available and its entry holds (or it has none), or — repeatable with
 *   an entry — when it closed in an earlier input and the entry holds again. Entering sets its boundary timers
 *   and spawns a thread for its steps.
 *
 * A guard that cannot be evaluated fails the instance with the expression's code. Boundary timers (of a stage,
 * or of the process) fire while their owner is active: an interrupting one ends the owner's threads and
 * cancels their work before its own block runs.
 */
import type { Timer } from '../process/index.js';
import { pointOf } from './due.js';
import { NO_CATCHES, ProcessError, setTimer, type ProcessInstance, type StageRun, type TimerRecord } from './instance.js';
import type { InstanceControl } from './steps/handler.js';
import type { Runner } from './threads.js';
import { isRecord } from '../json/guards.js';

export class Stages {
  constructor(
    private readonly instance: ProcessInstance,
    private readonly runner: Runner,
    private readonly control: InstanceControl,
  ) {}

  /** One pass over the stages; whether anything moved. */
  pass(): boolean {
    let moved = false;
    for (const run of this.instance.stages) {
      if (!this.instance.isLive() || this.instance.status === 'suspended') break;
      moved = (run.state === 'active' ? this.progress(run) : this.enterIfDue(run)) || moved;
    }
    return moved;
  }

  private progress(run: StageRun): boolean {
    const instance = this.instance;
    let moved = false;
    for (const milestone of run.stage.milestones) {
      if (instance.flipped.has(milestone.id)) continue;
      const holds = milestone.when === undefined ? true : this.guard(milestone.when, `${milestone.pointer}/when`);
      if (!instance.isLive()) return moved;
      if (holds === (instance.milestones.get(milestone.id) === true)) continue;
      instance.milestones.set(milestone.id, holds);
      instance.flipped.add(milestone.id);
      if (holds) instance.coverage.element(milestone.id);
      instance.emit(holds ? 'milestone_reached' : 'milestone_lost', milestone.id);
      moved = true;
    }
    if (!instance.isLive()) return moved;
    if (run.stage.exit !== undefined) {
      if (!this.guard(run.stage.exit, `${run.stage.pointer}/exit`)) return moved;
      instance.coverage.transition(`${run.stage.id}:exit`);
      this.exit(run, 'exit');
      return true;
    }
    if (instance.threads.some((thread) => thread.stage === run.stage.id && !thread.ended)) return moved;
    this.exit(run, 'work_done');
    return true;
  }

  private enterIfDue(run: StageRun): boolean {
    const stage = run.stage;
    const again = run.state === 'completed' && stage.repeatable && stage.entry !== undefined && run.closedSeq < this.instance.seq;
    if (run.state !== 'available' && !again) return false;
    if (stage.entry !== undefined) {
      if (!this.guard(stage.entry, `${stage.pointer}/entry`)) return false;
      this.instance.coverage.transition(`${stage.id}:entry`);
    }
    this.enter(run);
    return true;
  }

  private enter(run: StageRun): void {
    const instance = this.instance;
    run.state = 'active';
    run.runs++;
    run.enteredAt = instance.now;
    instance.coverage.element(run.stage.id);
    instance.emit('stage_entered', run.stage.id);
    for (const timer of run.stage.timers) this.armTimer(timer, run.timers, run);
    this.runner.spawn({ kind: 'stage', stage: run.stage.id }, run.stage.steps.steps, NO_CATCHES, undefined);
  }

  /** The stage closes: its threads end with their open work, its boundary timers go. */
  private exit(run: StageRun, cause: 'exit' | 'work_done'): void {
    const instance = this.instance;
    run.state = 'completed';
    run.closedSeq = instance.seq;
    for (const thread of instance.threads.filter((t) => t.stage === run.stage.id && !t.ended)) this.runner.end(thread, 'cancelled');
    for (const timer of run.timers.splice(0)) instance.timers.delete(timer);
    instance.emit('stage_exited', run.stage.id, { cause });
  }

  /** A boundary timer of a stage (or, without `stage`, of the process), counted from now. */
  armTimer(timer: Timer, owner: TimerRecord[], stage?: StageRun): void {
    const instance = this.instance;
    const base = instance.now;
    const source = isRecord(timer.at) && typeof timer.at.at === 'string' ? timer.at.at : undefined;
    const at = () => pointOf(timer.at, base, { evaluate: (expr) => instance.evaluate(expr, {}, `${timer.pointer}/at/at`) });
    let first: number;
    try {
      first = at();
    } catch (error) {
      this.control.fail(error instanceof ProcessError ? error.problem : { type: 'expression_error', status: 422, detail: `${timer.pointer}/at: ${(error as Error).message}` });
      return;
    }
    setTimer(instance, {
      id: timer.id, element: timer.id, at: first, pausable: stage !== undefined,
      ...(source !== undefined ? { recompute: { reads: instance.dataReads(source), at } } : {}),
      fire: () => this.fire(timer, stage),
    }, owner);
  }

  private fire(timer: Timer, stage: StageRun | undefined): void {
    const instance = this.instance;
    instance.coverage.element(timer.id);
    instance.emit('timer_fired', timer.id);
    const scope = stage === undefined ? { kind: 'process' as const } : { kind: 'stage' as const, stage: stage.stage.id };
    if (timer.interrupting) {
      const ended = instance.threads.filter((thread) => !thread.ended && (stage === undefined ? thread.scope.kind === 'stage' : thread.stage === stage.stage.id));
      for (const thread of ended) this.runner.end(thread, 'interrupted');
    }
    this.runner.spawn(scope, timer.do.steps, NO_CATCHES, undefined);
  }

  /** A guard's value; one that cannot be evaluated fails the instance (see `guardValue`). */
  private guard(source: string, pointer: string): boolean {
    try {
      return this.instance.evaluate(source, {}, pointer) === true;
    } catch (error) {
      if (!(error instanceof ProcessError)) throw error;
      if (readsUnsetField(error, source)) return false;
      this.control.fail(error.problem);
      return false;
    }
  }
}

/**
 * Whether a guard failed only because it read a data field that is not set. The core reads a declared,
 * non-required scalar that is unset as null (so `data.decision == 'go'` is false before a decision); the CEL
 * profile of this project does not have those null wrappers yet and reports a missing key, which the sandbox
 * therefore reads as "not true" instead of failing the instance. A milestone never reached is missing in the
 * core too: that failure stands.
 */
function readsUnsetField(error: ProcessError, source: string): boolean {
  const missing = /: No such key: (\S+)$/.exec(error.problem.detail ?? '')?.[1];
  return error.problem.type === 'expression_error' && missing !== undefined && !new RegExp(`\\bmilestone\\.${missing.replace(/[^\w-]/g, '')}\\b`).test(source);
}
