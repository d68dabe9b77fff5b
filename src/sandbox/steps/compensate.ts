/**
 * `compensate`: runs the `onCompensate` blocks of completed steps — all of them, or those named — newest first,
 * each in the context its step ran in; a step is compensated once.
 */
import type { Scope } from '../clock.js';
import type { BlockRunner, Handler } from './handler.js';
import type { ProcessInstance } from '../instance.js';

export const compensate: Handler<'compensate'> = async (step, { instance, flow, scope }) => {
  await compensateSteps(instance, flow, step.body, scope);
  return {};
};

async function compensateSteps(instance: ProcessInstance, flow: BlockRunner, which: unknown, scope: Scope): Promise<void> {
  const ids = which === 'all' ? undefined : Array.isArray(which) ? which.map(String) : [];
  for (let i = instance.compensable.length - 1; i >= 0; i--) {
    const { step, ctx } = instance.compensable[i]!;
    if (ids !== undefined && !ids.includes(step.id)) continue;
    instance.compensable.splice(i, 1);
    instance.record('process.compensated', step.id);
    await flow.runHeld(step, 'onCompensate', scope, ctx);
  }
}
