/**
 * `try`: runs its block; an error raised inside is retried first (`retry`: a limit, the error types to retry,
 * a delay — doubled each attempt when exponential, at most `maxDelay`; none means at once), then caught by the
 * first `catch` clause whose `errors` match, whose block runs with the error bound by `as`. An error nothing
 * handles goes on up.
 */
import type { StepOf } from '../../process/index.js';
import { milliseconds } from '../due.js';
import { Activity, setTimer, type Problem } from '../instance.js';
import { heldSteps } from './activity.js';
import type { Handler, StepRun } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const attempt: Handler<'try'> = (step, run) => {
  const start = (attempt: number): void => {
    run.runner.push(run.thread, heldSteps(step, 'try'), run.ctx, step, () => run.runner.complete(run.thread, step, {}, run.ctx), (problem) => handle(run, step, problem, attempt, start));
  };
  start(0);
  return { kind: 'block' };
};

/** An error raised in the try's block: retried, caught, or (false) not this try's to handle. */
function handle(run: StepRun, step: StepOf<'try'>, problem: Problem, attempt: number, start: (attempt: number) => void): boolean {
  const { instance, thread, ctx, runner } = run;
  const retry = isRecord(step.body.retry) ? step.body.retry : undefined;
  if (retry !== undefined && attempt < Number(retry.limit ?? 0) && (!Array.isArray(retry.on) || retry.on.length === 0 || retry.on.includes(problem.type))) {
    instance.coverage.handler(`${step.id}:retry`);
    const delay = retryDelay(retry, attempt + 1);
    if (delay <= 0) {
      start(attempt + 1);
      return true;
    }
    const pause = new Activity('retry', step, thread, instance);
    setTimer(instance, {
      id: `${step.id}.retry`, element: step.id, at: instance.now + delay, pausable: thread.scope.kind === 'stage',
      fire: () => runner.resume(pause, 'completed', () => start(attempt + 1)),
    }, pause.timers);
    return true;
  }
  const clauses = step.body.catch ?? [];
  const index = clauses.findIndex((clause) => problemMatches(clause.errors, problem));
  if (index < 0) return false;
  const clause = clauses[index]!;
  instance.coverage.handler(`${step.id}:catch/${index}`);
  const bound = { type: problem.type, status: problem.status ?? null, detail: problem.detail ?? null };
  const catches = typeof clause.as === 'string' ? { ...ctx.catches, [clause.as]: bound } : ctx.catches;
  runner.push(thread, heldSteps(step, 'catch', clause), { ...ctx, catches }, step, () => runner.complete(thread, step, {}, ctx));
  return true;
}

/** The pause before retry `attempt` (1-based): the delay, doubled each attempt when exponential, at most `maxDelay`. */
function retryDelay(retry: Readonly<Record<string, unknown>>, attempt: number): number {
  const base = typeof retry.delay === 'string' ? milliseconds(retry.delay) : 0;
  const grown = retry.backoff === 'exponential' ? base * 2 ** (attempt - 1) : base;
  return typeof retry.maxDelay === 'string' ? Math.min(grown, milliseconds(retry.maxDelay)) : grown;
}

/** Whether a clause's `errors` (a type, a status; none: any error) matches the problem. */
function problemMatches(errors: unknown, problem: Problem): boolean {
  if (!isRecord(errors)) return true;
  if (typeof errors.type === 'string' && errors.type !== problem.type) return false;
  if (typeof errors.status === 'number' && errors.status !== problem.status) return false;
  return true;
}
