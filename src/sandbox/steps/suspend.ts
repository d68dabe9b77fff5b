/** `suspend`: the instance pauses — the threads of its stages wait and their timers stop — until a `resume`. */
import type { Handler } from './handler.js';

export const suspend: Handler<'suspend'> = (step, { instance, thread, ctx, runner }) => {
  const reason = typeof step.body.reason === 'string' ? instance.evaluate(step.body.reason, { thread, frame: ctx }, `${step.pointer}/suspend/reason`) : undefined;
  runner.control.suspend(reason);
  return { kind: 'done' };
};
