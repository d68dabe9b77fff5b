/** `set`: writes CEL values into the data. */
import type { Handler } from './handler.js';

export const set: Handler<'set'> = async (step, { instance, ctx }) => {
  instance.assign(step.body, ctx, step.id);
  return {};
};
