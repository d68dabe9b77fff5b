/**
 * `wait`: a pause until a moment — a duration from now, or `{at}` (a moment, or a duration from now). A moment
 * computed from data is computed again when that data changes.
 */
import { Activity, setTimer } from '../instance.js';
import { momentOf } from './activity.js';
import type { Handler } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const wait: Handler<'wait'> = (step, { instance, thread, ctx, runner }) => {
  const base = instance.now;
  const evaluate = (source: string) => instance.evaluate(source, { thread, frame: ctx }, `${step.pointer}/wait/at`);
  const at = () => momentOf(step.body, base, evaluate);
  const first = at();
  const activity = new Activity('wait', step, thread, instance);
  const source = isRecord(step.body) && typeof step.body.at === 'string' ? step.body.at : undefined;
  setTimer(instance, {
    id: step.id, element: step.id, at: first, pausable: thread.scope.kind === 'stage',
    ...(source !== undefined ? { recompute: { reads: instance.dataReads(source), at } } : {}),
    fire: () => runner.resume(activity, 'completed', () => runner.complete(thread, step, { result: {} }, ctx)),
  }, activity.timers);
  return { kind: 'wait' };
};
