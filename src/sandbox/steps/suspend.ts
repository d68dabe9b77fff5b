/** `suspend`: pauses a running instance — its steps wait and its timers stop counting — until a `resume`. */
import type { Handler } from './handler.js';

export const suspend: Handler<'suspend'> = async (step, { instance, ctx }) => {
  instance.suspend(step.body.reason, ctx);
  return {};
};
