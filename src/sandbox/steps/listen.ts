/**
 * `listen`: waits for the first event one of its options is `on` (in declaration order): the result is
 * `{option, event}`, the thread's event becomes that event, and the option's block runs. Its `timeout` times
 * the step out (`onTimeout` runs, or the thread goes on); its `due` is a deadline of the wait.
 */
import { startDeadline } from '../deadlines.js';
import { Activity, type EngineEvent } from '../instance.js';
import { heldSteps, timeoutTimer } from './activity.js';
import type { Handler } from './handler.js';
import { triggerMatches } from '../triggers.js';

export const listen: Handler<'listen'> = (step, run) => {
  const { instance, thread, ctx, runner } = run;
  const options = step.body.any ?? [];
  const activity = new Activity('listen', step, thread, instance);
  if (step.body.due !== undefined) {
    startDeadline(instance, { key: step.id, due: step.body.due, bindings: { thread, frame: ctx }, owner: activity.timers, pausable: thread.scope.kind === 'stage' });
  }
  activity.hear = (event: EngineEvent) => {
    const index = options.findIndex((option) => triggerMatches(instance, option.on, event, { thread, frame: ctx }));
    if (index < 0) return false;
    instance.coverage.transition(`${step.id}:any/${index}`);
    runner.resume(activity, 'completed', () => {
      thread.event = event;
      const done = () => runner.complete(thread, step, { result: { option: index, event } }, ctx);
      runner.push(thread, heldSteps(step, 'listen', options[index]), ctx, step, done);
    });
    return true;
  };
  if (step.body.timeout !== undefined) {
    timeoutTimer(run, step, activity, step.body.timeout, () => {
      instance.coverage.transition(`${step.id}:timeout`);
      runner.resume(activity, 'timed_out', () => {
        const onTimeout = heldSteps(step, 'onTimeout');
        const done = () => runner.complete(thread, step, { status: 'timed_out', skipOutput: true }, ctx);
        if (onTimeout.length === 0) return done();
        instance.coverage.handler(`${step.id}:onTimeout`);
        runner.push(thread, onTimeout, ctx, step, done);
      });
    });
  }
  return { kind: 'wait' };
};
