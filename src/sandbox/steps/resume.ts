/** `resume`: a suspended instance goes on; its frozen timers count again from now. */
import type { Handler } from './handler.js';

export const resume: Handler<'resume'> = (_step, { runner }) => {
  runner.control.resume();
  return { kind: 'done' };
};
