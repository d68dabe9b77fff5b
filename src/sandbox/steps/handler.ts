/**
 * What a step handler is: the behaviour of one kind of step, given the typed step and where it runs. The table
 * of handlers by kind is in index.ts.
 */
import type { BlockRole, Step, StepKind, StepOf } from '../../process/index.js';
import type { Scope } from '../clock.js';
import type { ProcessInstance, StepContext, TaskRecord } from '../instance.js';

/** What runs the blocks a step holds (flow.ts). */
export interface BlockRunner {
  run(steps: readonly Step[], scope: Scope, ctx: StepContext): Promise<void>;
  /** The block of `role` the step holds — for a catch clause, a fork branch or a listen option, the one `holder` holds. */
  runHeld(step: Step, role: BlockRole, scope: Scope, ctx: StepContext, holder?: object): Promise<void>;
}

/** Where a step runs: the instance, the flow that runs the blocks it holds, its scope and its context. */
export interface StepRun {
  instance: ProcessInstance;
  flow: BlockRunner;
  scope: Scope;
  ctx: StepContext;
}

/** What a step gives back: its result (`step.result` of `output.as`) and its task, or that it has no output. */
export interface StepDone {
  result?: unknown;
  task?: TaskRecord;
  skipOutput?: boolean;
}

export type Handler<K extends StepKind> = (step: StepOf<K>, run: StepRun) => StepDone | Promise<StepDone>;
