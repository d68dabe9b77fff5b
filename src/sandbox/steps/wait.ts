/** `wait`: a pause until a moment — a duration from now, or `{at}`. */
import type { Handler } from './handler.js';

export const wait: Handler<'wait'> = async (step, { instance, scope, ctx }) => {
  await instance.sleep(instance.point(step.body, ctx), scope, step.id);
  return {};
};
