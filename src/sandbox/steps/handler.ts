/**
 * What a step handler is: the behaviour of one kind of step, given the typed step, its thread and the runner
 * that runs blocks and threads. A handler finishes its step at once (`done`), runs a block that finishes it
 * (`block`), or leaves the thread waiting on an activity whose answer finishes it (`wait`). The table of
 * handlers by kind is in index.ts; the runner is threads.ts.
 */
import type { Step, StepKind, StepOf } from '../../process/index.js';
import type { Activity, EngineEvent, ExitOutcome, FrameContext, Problem, ProcessInstance, TaskRecord, Thread, ThreadScope } from '../instance.js';

/** What a finished step gives: its result (`step.result`), its task, whether `output.as` is skipped, its status. */
export interface StepDone {
  result?: unknown;
  task?: TaskRecord;
  skipOutput?: boolean;
  status?: 'completed' | 'timed_out';
}

/** `done`: finished now; `block`: a block it pushed finishes it; `wait`: an activity's answer finishes it; `closed`: it closed the instance. */
export type StepOutcome = ({ kind: 'done' } & StepDone) | { kind: 'wait' } | { kind: 'block' } | { kind: 'closed' };

/** What the instance as a whole does for a step: close it, suspend and resume it. */
export interface InstanceControl {
  completeInstance(outcome: string | undefined): void;
  fail(problem: Problem): void;
  suspend(reason: unknown): void;
  resume(): void;
}

/** What runs blocks and threads for a step (threads.ts). */
export interface StepRunner {
  readonly control: InstanceControl;
  /** Runs `steps` on the thread as a block held by `owner`; `onEnd` when it runs to its end. */
  push(thread: Thread, steps: readonly Step[], ctx: FrameContext, owner: Step, onEnd: () => void, onError?: (problem: Problem) => boolean): void;
  /** The step is done: its output is written, it becomes compensable, the thread's `step` is its result. */
  complete(thread: Thread, step: Step, done: StepDone, ctx: FrameContext): void;
  /** An error in the thread, handed up to the nearest `try` around it. */
  raise(thread: Thread, problem: Problem): void;
  /** An activity is answered: it closes with `outcome`, and its thread goes on with `next` when it runs. */
  resume(activity: Activity, outcome: ExitOutcome, next: () => void): void;
  /** A thread of its own: a fork's branch, a compensation. */
  spawn(scope: ThreadScope, steps: readonly Step[], ctx: FrameContext, event: EngineEvent | undefined, owner?: Step): Thread;
  /** Ends a thread with its open work, as a lost branch or an interrupting timer does. */
  end(thread: Thread, outcome: ExitOutcome): void;
}

/** Where a step runs: the instance, its thread, the context of its block, the runner. */
export interface StepRun {
  instance: ProcessInstance;
  thread: Thread;
  ctx: FrameContext;
  runner: StepRunner;
}

export type Handler<K extends StepKind> = (step: StepOf<K>, run: StepRun) => StepOutcome;
