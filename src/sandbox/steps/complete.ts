/** `complete`: ends the instance with an outcome; everything still running is cancelled, this flow too. */
import { Cancelled } from '../clock.js';
import type { Handler } from './handler.js';

export const complete: Handler<'complete'> = async (step, { instance }) => {
  instance.completeInstance(typeof step.body.outcome === 'string' ? step.body.outcome : undefined);
  throw new Cancelled();
};
