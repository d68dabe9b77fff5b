/** `raise`: a process error `{type, status, detail}`, for a `try` around the step to catch (or to fail the instance). */
import { ProcessError } from '../instance.js';
import type { Handler } from './handler.js';

export const raise: Handler<'raise'> = (step, { instance, thread, ctx }) => {
  const body = step.body;
  const detail = typeof body.detail === 'string' ? instance.evaluate(body.detail, { thread, frame: ctx }, `${step.pointer}/raise/detail`) : undefined;
  throw new ProcessError({
    type: String(body.type),
    ...(typeof body.status === 'number' ? { status: body.status } : {}),
    ...(detail !== undefined && detail !== null ? { detail: String(detail) } : {}),
  });
};
