/** `do`: a block of steps run in order, as one step. */
import type { Handler } from './handler.js';

export const doBlock: Handler<'do'> = async (step, { flow, scope, ctx }) => {
  await flow.runHeld(step, 'do', scope, ctx);
  return {};
};
