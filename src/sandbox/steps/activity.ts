/**
 * What the steps that open work share: the blocks a step holds, the candidates of an assign chain as the
 * engine computes them, an intent the world refused (the step's thread gets `intent_failed`), and a step's
 * timeout timer.
 */
import type { BlockRole, Step } from '../../process/index.js';
import { pointOf } from '../due.js';
import { ProcessError, setTimer, type Activity, type Bindings, type ProcessInstance, type Refusal } from '../instance.js';
import { records } from '../values.js';
import type { StepRun } from './handler.js';

/** The steps of the block of `role` a step holds — for a catch clause, a fork branch or a listen option, the one `holder` holds. */
export function heldSteps(step: Step, role: BlockRole, holder?: object): readonly Step[] {
  return step.blocks.find((block) => block.role === role && (holder === undefined || block.holder === holder))?.steps ?? [];
}

/**
 * The candidates of an assign chain, in order: `agent:<key>`, `role:<slug>`, a principal — or null for an
 * `expr` link that names nobody (null or ""), which the world skips.
 */
export function chainCandidates(instance: ProcessInstance, chain: unknown, bindings: Bindings, pointer: string): (string | null)[] {
  return records(chain).map((link, index) => {
    if (typeof link.principal === 'string') return instance.world.catalog.substitute(link.principal, instance.world.variables);
    if (typeof link.role === 'string') return `role:${link.role}`;
    if (typeof link.agent === 'string') return `agent:${instance.world.catalog.substitute(link.agent, instance.world.variables)}`;
    if (typeof link.expr !== 'string') return null;
    const value = instance.evaluate(link.expr, bindings, `${pointer}/${index}/expr`);
    return typeof value === 'string' && value !== '' ? value : null;
  });
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && 'refused' in value;
}

/** The world refused the intent that opens the activity: a later input fails it with `intent_failed` in its thread. */
export function refuse(run: StepRun, activity: Activity, refusal: Refusal): void {
  activity.waitingFor = `refused: ${refusal.refused}`;
  run.instance.world.later(run.instance, () => {
    if (!activity.open) return;
    activity.close('failed');
    run.runner.raise(run.thread, { type: 'intent_failed', status: 422, detail: refusal.refused });
  });
}

/** A step's `timeout` (a duration or `{at}` from now), which `fire`s unless the activity closed first. */
export function timeoutTimer(run: StepRun, step: Step, activity: Activity, timeout: unknown, fire: () => void): void {
  const { instance, thread, ctx } = run;
  const evaluate = (source: string) => instance.evaluate(source, { thread, frame: ctx }, `${step.pointer}/${step.kind}/timeout/at`);
  const at = momentOf(timeout, instance.now, evaluate);
  setTimer(instance, {
    id: step.id, element: step.id, at, pausable: thread.scope.kind === 'stage',
    fire: () => {
      if (activity.open) fire();
    },
  }, activity.timers);
}

/** A `durationOrCel` counted from `from`; one that cannot be computed is an `expression_error` of the step. */
export function momentOf(value: unknown, from: number, evaluate: (source: string) => unknown): number {
  try {
    return pointOf(value, from, { evaluate });
  } catch (error) {
    if (error instanceof ProcessError) throw error;
    throw new ProcessError({ type: 'expression_error', status: 422, detail: (error as Error).message });
  }
}
