/**
 * Threads of an instance, run as the core runs them: a thread executes its frames step by step until it waits
 * on an activity or ends; an error goes up its frames to the nearest `try` in its do phase, out of a fork's
 * branch into the fork, and fails the instance from the top. A step's `when` that is not true skips it
 * (remembered with the values its guard read); a step that finishes writes its `output.as`, becomes
 * compensable and is the thread's `step`.
 */
import type { Step, StepKind, StepOf } from '../process/index.js';
import { isRecord } from '../json/guards.js';
import {
  ProcessError, Thread,
  type Activity, type EngineEvent, type ExitOutcome, type Frame, type FrameContext, type Problem, type ProcessInstance, type ThreadScope,
} from './instance.js';
import type { InstanceControl, StepDone, StepOutcome, StepRun, StepRunner } from './steps/handler.js';
import { HANDLERS } from './steps/index.js';

export class Runner implements StepRunner {
  constructor(
    private readonly instance: ProcessInstance,
    readonly control: InstanceControl,
  ) {}

  spawn(scope: ThreadScope, steps: readonly Step[], ctx: FrameContext, event: EngineEvent | undefined, owner?: Step): Thread {
    const thread = new Thread(this.instance.nextThreadId(), scope);
    if (event !== undefined) thread.event = event;
    thread.frames.push({ steps, index: 0, ctx, ...(owner ? { owner } : {}) });
    this.instance.threads.push(thread);
    return thread;
  }

  /** Whether the drive loop may run the thread now: not ended, not waiting, not paused by a suspension. */
  runnable(thread: Thread): boolean {
    if (thread.ended || thread.waiting !== undefined) return false;
    if (this.instance.status === 'suspended' && thread.scope.kind === 'stage') return false;
    return true;
  }

  /** Runs the thread until it waits, ends, or the instance closes. */
  run(thread: Thread): void {
    const instance = this.instance;
    while (this.runnable(thread) && instance.isLive()) {
      try {
        instance.countFrame();
        if (thread.next !== undefined) {
          const next = thread.next;
          thread.next = undefined;
          next();
          continue;
        }
        const frame = thread.frames.at(-1);
        if (frame === undefined) {
          this.finish(thread);
          return;
        }
        if (frame.index >= frame.steps.length) {
          thread.frames.pop();
          frame.onEnd?.();
          continue;
        }
        this.execute(thread, frame.steps[frame.index++]!, frame);
      } catch (error) {
        if (!(error instanceof ProcessError)) throw error;
        if (error.problem.type === 'step_limit_exceeded') {
          this.control.fail(error.problem);
          return;
        }
        this.raise(thread, error.problem);
      }
    }
  }

  private execute(thread: Thread, step: Step, frame: Frame): void {
    const instance = this.instance;
    const coverage = instance.coverage;
    if (step.when !== undefined) {
      if (instance.evaluate(step.when, { thread, frame: frame.ctx }, `${step.pointer}/when`) !== true) {
        coverage.transition(`${step.id}:skip`);
        instance.skipped.set(step.id, `its when \`${step.when}\` was false${valuesRead(instance, step.when)}`);
        return;
      }
      coverage.transition(`${step.id}:when`);
    }
    coverage.element(step.id);
    for (const held of thread.frames) if (held.owner !== undefined) coverage.element(held.owner.id);
    const outcome = perform(step, { instance, thread, ctx: frame.ctx, runner: this });
    if (outcome.kind === 'done') this.complete(thread, step, outcome, frame.ctx);
  }

  push(thread: Thread, steps: readonly Step[], ctx: FrameContext, owner: Step, onEnd: () => void, onError?: (problem: Problem) => boolean): void {
    thread.frames.push({ steps, index: 0, ctx, owner, onEnd, ...(onError ? { onError } : {}) });
  }

  complete(thread: Thread, step: Step, done: StepDone, ctx: FrameContext): void {
    const instance = this.instance;
    const status = done.status ?? 'completed';
    const stepBinding = { id: step.id, status, result: done.result ?? null };
    if (done.task !== undefined) thread.lastTask = done.task;
    const output = outputOf(step);
    if (done.skipOutput !== true && output !== undefined) {
      instance.assign(output, { thread, frame: ctx, step: stepBinding, ...(done.task ? { task: done.task } : {}) }, `${step.pointer}/output/as`);
    }
    if (step.blocks.some((block) => block.role === 'onCompensate')) instance.compensable.push({ step, thread, ctx });
    thread.lastStep = stepBinding;
  }

  raise(thread: Thread, problem: Problem): void {
    thread.waiting?.cancel('failed');
    thread.next = undefined;
    while (thread.frames.length > 0) {
      const frame = thread.frames.pop()!;
      if (frame.onError?.(problem) === true) return;
    }
    this.retire(thread);
    if (thread.exit !== undefined) thread.exit.failed(problem);
    else this.control.fail(problem);
  }

  resume(activity: Activity, outcome: ExitOutcome, next: () => void): void {
    activity.close(outcome);
    activity.thread.next = next;
  }

  end(thread: Thread, outcome: ExitOutcome): void {
    if (thread.ended) return;
    thread.waiting?.cancel(outcome);
    thread.next = undefined;
    thread.frames.length = 0;
    this.retire(thread);
  }

  /** A thread that ran out of frames ends; a fork's branch tells its fork. */
  private finish(thread: Thread): void {
    this.retire(thread);
    thread.exit?.done();
  }

  private retire(thread: Thread): void {
    thread.ended = true;
  }

  /** Drops the threads that ended from the instance's list (done between passes, so that a pass keeps its order). */
  compact(): void {
    const threads = this.instance.threads;
    const live = threads.filter((thread) => !thread.ended);
    if (live.length !== threads.length) threads.splice(0, threads.length, ...live);
  }
}

function perform<K extends StepKind>(step: StepOf<K>, run: StepRun): StepOutcome {
  return HANDLERS[step.kind](step, run);
}

/** `output.as`: where the step's result goes in the data. */
function outputOf(step: Step): Readonly<Record<string, unknown>> | undefined {
  const output = step.node.output;
  return isRecord(output) && isRecord(output.as) ? output.as : undefined;
}

function valuesRead(instance: ProcessInstance, source: string): string {
  const values = instance.readValues(source);
  return values === '' ? '' : ` (${values})`;
}
