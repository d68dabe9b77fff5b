/**
 * `fork`: one thread per branch, in the same scope and with the same event. `all` waits for every branch;
 * `compete` takes the first branch to finish and ends the others. An error no branch handles ends the other
 * branches and goes on in the thread of the fork.
 */
import { Activity, type Thread } from '../instance.js';
import { heldSteps } from './activity.js';
import type { Handler } from './handler.js';

export const fork: Handler<'fork'> = (step, { instance, thread, ctx, runner }) => {
  const branches = step.body.branches ?? [];
  if (branches.length === 0) return { kind: 'done' };
  const activity = new Activity('fork', step, thread, instance);
  const children: Thread[] = [];
  const endOthers = (winner: Thread) => children.filter((child) => child !== winner).forEach((child) => runner.end(child, 'cancelled'));
  activity.onCancel = (outcome) => children.forEach((child) => runner.end(child, outcome));
  let left = branches.length;
  for (const branch of branches) {
    const child = runner.spawn(thread.scope, heldSteps(step, 'branch', branch), ctx, thread.event);
    child.exit = {
      done: () => {
        if (!activity.open) return;
        instance.coverage.transition(`${step.id}:${String(branch.id)}`);
        if (step.body.mode === 'compete') endOthers(child);
        else if (--left > 0) return;
        runner.resume(activity, 'completed', () => runner.complete(thread, step, {}, ctx));
      },
      failed: (problem) => {
        if (!activity.open) return;
        endOthers(child);
        activity.close('failed');
        runner.raise(thread, problem);
      },
    };
    children.push(child);
  }
  return { kind: 'wait' };
};
