/**
 * `listen`: waits for the first event one of its options is `on` (deferred choice) and runs that option's
 * block with the event; its `timeout` runs `onTimeout` instead, and its `due` is a deadline of the wait.
 */
import type { EngineEvent } from '../instance.js';
import { closeDeadline, startDeadline } from '../deadlines.js';
import type { Handler } from './handler.js';

type Option = Readonly<Record<string, unknown>>;

export const listen: Handler<'listen'> = async (step, { instance, flow, scope, ctx }) => {
  const body = step.body;
  const options = body.any ?? [];
  const chosen = (event: EngineEvent) => options.find((option) => instance.triggerMatches(option.on, event, ctx));
  const work = scope.child();
  if (body.due !== undefined) startDeadline(instance, step.id, body.due, work, ctx, {});
  const timeoutAt = body.timeout === undefined ? undefined : instance.point(body.timeout, ctx);
  try {
    const heard = await work.wait<{ option: Option; event: EngineEvent } | 'timeout'>((resolve) => {
      const listener = {
        matches: (event: EngineEvent) => chosen(event) !== undefined,
        deliver: (event: EngineEvent) => resolve({ option: chosen(event)!, event }),
      };
      instance.listeners.add(listener);
      const cancelTimer = timeoutAt === undefined ? () => undefined : instance.clock.schedule(timeoutAt, () => resolve('timeout'), { id: step.id });
      return () => {
        instance.listeners.delete(listener);
        cancelTimer();
      };
    });
    closeDeadline(instance, step.id);
    if (heard === 'timeout') {
      instance.record('process.listen_timeout', step.id);
      await flow.runHeld(step, 'onTimeout', scope, ctx);
    } else {
      instance.record('process.event_received', step.id, { type: heard.event.type });
      await flow.runHeld(step, 'listen', scope, { ...ctx, event: heard.event }, heard.option);
    }
    return {};
  } finally {
    work.cancel();
  }
};
