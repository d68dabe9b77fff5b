/**
 * `recall`: a memory query — its anchors, query and `where` values computed — answered by the test's
 * `mocks.recall`. An answer is the result `{nodes, edges, truncated}` (`process.recall_completed`); no answer
 * within the timeout (10 minutes by default), or a failed one, times the step out (`process.recall_timed_out`):
 * its `onTimeout` runs and `output.as` is not written.
 */
import { startDeadline } from '../deadlines.js';
import { Activity, type Bindings, type ProcessInstance } from '../instance.js';
import { records } from '../values.js';
import { heldSteps, timeoutTimer } from './activity.js';
import type { Handler, StepRun } from './handler.js';
import type { StepOf } from '../../process/index.js';
import { isRecord } from '../../json/guards.js';

const DEFAULT_TIMEOUT = 'PT10M';

export const recall: Handler<'recall'> = (step, run) => {
  const { instance, thread, ctx, runner } = run;
  const body = step.body;
  const bindings = { thread, frame: ctx };
  const activity = new Activity('recall', step, thread, instance);
  if (body.due !== undefined) startDeadline(instance, { key: step.id, due: body.due, bindings, owner: activity.timers, pausable: thread.scope.kind === 'stage' });
  const timedOut = () => {
    if (!activity.open) return;
    instance.coverage.transition(`${step.id}:timeout`);
    instance.emit('recall_timed_out', step.id);
    runner.resume(activity, 'timed_out', () => afterTimeout(run, step));
  };
  timeoutTimer(run, step, activity, body.timeout ?? DEFAULT_TIMEOUT, timedOut);
  activity.onAnswer = (answer) => {
    if (answer.kind === 'error') return timedOut();
    if (answer.kind !== 'result') return;
    const output = isRecord(answer.output) ? answer.output : {};
    const result = { nodes: output.nodes ?? [], edges: output.edges ?? [], truncated: output.truncated ?? false };
    instance.coverage.transition(`${step.id}:answered`);
    instance.recalled.push(step.id);
    instance.emit('recall_completed', step.id);
    runner.resume(activity, 'completed', () => runner.complete(thread, step, { result }, ctx));
  };
  instance.world.recall(activity, queryOf(instance, step, bindings));
  return { kind: 'wait' };
};

function afterTimeout(run: StepRun, step: StepOf<'recall'>): void {
  const done = () => run.runner.complete(run.thread, step, { status: 'timed_out', skipOutput: true }, run.ctx);
  const onTimeout = heldSteps(step, 'onTimeout');
  if (onTimeout.length === 0) return done();
  run.instance.coverage.handler(`${step.id}:onTimeout`);
  run.runner.push(run.thread, onTimeout, run.ctx, step, done);
}

/** The query the core sends to memory: the anchors with their keys (an anchor whose key is null is dropped), the query, the kinds. */
function queryOf(instance: ProcessInstance, step: StepOf<'recall'>, bindings: Bindings): Record<string, unknown> {
  const pointer = `${step.pointer}/recall`;
  const anchors = records(step.body.anchors).flatMap((anchor, i): Record<string, unknown>[] => {
    if (anchor.case === true) return [{ case: true }];
    const key = typeof anchor.key === 'string' ? instance.evaluate(anchor.key, bindings, `${pointer}/anchors/${i}/key`) : anchor.key;
    return key === null || key === undefined ? [] : [{ ...anchor, key }];
  });
  const query = typeof step.body.query === 'string' ? instance.evaluate(step.body.query, bindings, `${pointer}/query`) : null;
  return { step: step.id, anchors, query, kinds: step.body.kinds ?? [] };
}
