/** `complete`: closes the instance with the step's outcome; everything still running ends. */
import type { Handler } from './handler.js';

export const complete: Handler<'complete'> = (step, { runner }) => {
  runner.control.completeInstance(typeof step.body.outcome === 'string' ? step.body.outcome : undefined);
  return { kind: 'closed' };
};
