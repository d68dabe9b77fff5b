/**
 * What a step handler is: the behaviour of one kind of step, given the typed step and where it runs. The table
 * of handlers by kind is in index.ts.
 */
import type { StepKind, StepOf } from '../../process/index.js';
import type { Scope } from '../clock.js';
import type { Flow } from '../flow.js';
import type { ProcessInstance, StepContext, TaskRecord } from '../instance.js';

/** Where a step runs: the instance, the flow that runs the blocks it holds, its scope and its context. */
export interface StepRun {
  instance: ProcessInstance;
  flow: Flow;
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
