/** `do`: a block of steps run in order, as one step; it has no decision of its own. */
import { heldSteps } from './activity.js';
import type { Handler } from './handler.js';

export const doBlock: Handler<'do'> = (step, { thread, ctx, runner }) => {
  runner.push(thread, heldSteps(step, 'do'), ctx, step, () => runner.complete(thread, step, {}, ctx));
  return { kind: 'block' };
};
