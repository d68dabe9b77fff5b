/**
 * `try`: runs its block; a process error is retried (`retry`: a limit, delays growing or not, the error types
 * to retry) and then caught by the first `catch` clause that matches it, whose block runs with the error bound
 * by `as`. An error no clause matches goes on up.
 */
import type { StepOf } from '../../process/index.js';
import { milliseconds } from '../due.js';
import { ProcessError, type Problem } from '../instance.js';
import type { Handler, StepRun } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const attempt: Handler<'try'> = async (step, run) => {
  await attemptWithRetries(step, run);
  return {};
};

async function attemptWithRetries(step: StepOf<'try'>, { instance, flow, scope, ctx }: StepRun): Promise<void> {
  const retry = isRecord(step.body.retry) ? step.body.retry : undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      await flow.runHeld(step, 'try', scope, ctx);
      return;
    } catch (error) {
      if (!(error instanceof ProcessError)) throw error;
      const retryable = retry !== undefined && attempt < Number(retry.limit ?? 0)
        && (!Array.isArray(retry.on) || retry.on.includes(error.problem.type));
      if (retryable) {
        instance.record('process.retry', undefined, { attempt: attempt + 1, error: error.problem.type });
        const wait = retryDelay(retry, attempt);
        if (wait > 0) await instance.sleep(instance.clock.now + wait, scope, 'retry');
        continue;
      }
      const clause = (step.body.catch ?? []).find((c) => problemMatches(c.errors, error.problem));
      if (clause === undefined) throw error;
      instance.record('process.error_caught', undefined, error.problem);
      const catches = typeof clause.as === 'string' ? { ...ctx.catches, [clause.as]: error.problem } : ctx.catches;
      await flow.runHeld(step, 'catch', scope, { ...ctx, catches }, clause);
      return;
    }
  }
}

/** The pause before retry `attempt + 1`: the delay, doubled each time when exponential, at most `maxDelay`. */
function retryDelay(retry: Readonly<Record<string, unknown>>, attempt: number): number {
  const base = typeof retry.delay === 'string' ? milliseconds(retry.delay) : 0;
  const grown = retry.backoff === 'exponential' ? base * 2 ** attempt : base;
  return typeof retry.maxDelay === 'string' ? Math.min(grown, milliseconds(retry.maxDelay)) : grown;
}

/** Whether a clause's `errors` (a type, a status; none: any error) matches the problem. */
function problemMatches(errors: unknown, problem: Problem): boolean {
  if (!isRecord(errors)) return true;
  if (typeof errors.type === 'string' && errors.type !== problem.type) return false;
  if (typeof errors.status === 'number' && errors.status !== problem.status) return false;
  return true;
}
