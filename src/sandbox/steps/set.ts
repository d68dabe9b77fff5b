/** `set`: writes CEL values into the data — all of them computed first, then written. */
import type { Handler } from './handler.js';

export const set: Handler<'set'> = (step, { instance, thread, ctx }) => {
  instance.assign(step.body, { thread, frame: ctx }, `${step.pointer}/set`);
  return { kind: 'done' };
};
