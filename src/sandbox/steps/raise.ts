/** `raise`: a process error, for a `try` around the step to catch (or to fail the instance). */
import { ProcessError } from '../instance.js';
import type { Handler } from './handler.js';

export const raise: Handler<'raise'> = async (step, { instance, ctx }) => {
  throw new ProcessError(instance.problemOf(step.body, ctx));
};
