/**
 * `compensate`: runs the `onCompensate` blocks of completed steps not yet compensated — all of them, or those
 * named — the latest completion first, each once and in the context its step ran in; each block that ends
 * emits `process.compensated`.
 */
import { heldSteps } from './activity.js';
import type { Handler } from './handler.js';

export const compensate: Handler<'compensate'> = (step, { instance, thread, ctx, runner }) => {
  const ids = step.body === 'all' ? undefined : Array.isArray(step.body) ? step.body.map(String) : [];
  const chosen = [...instance.compensable].reverse().filter((entry) => ids === undefined || ids.includes(entry.step.id));
  for (const entry of chosen) instance.compensable.splice(instance.compensable.indexOf(entry), 1);
  const next = (index: number): void => {
    const entry = chosen[index];
    if (entry === undefined) return runner.complete(thread, step, {}, ctx);
    instance.coverage.handler(`${entry.step.id}:onCompensate`);
    runner.push(thread, heldSteps(entry.step, 'onCompensate'), { ...entry.ctx, compensated: entry.step.id }, step, () => {
      instance.emit('compensated', entry.step.id);
      next(index + 1);
    });
  };
  next(0);
  return { kind: 'block' };
};
