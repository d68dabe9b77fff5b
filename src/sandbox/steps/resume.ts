/** `resume`: a suspended instance goes on, its timers later by the length of the pause. */
import type { Handler } from './handler.js';

export const resume: Handler<'resume'> = async (_step, { instance }) => {
  instance.resume();
  return {};
};
