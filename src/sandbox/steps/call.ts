/**
 * `call`: a skill (its input is `input.from` overlaid by `call.input`; success gives its output, failure the
 * error it answers — `skill_failed`, 502 by default), an agent (a task assigned to it, like a human task), or
 * another process (a child instance that runs for real; its end answers: `{outcome, data}`, or the error
 * `child_failed` / `child_cancelled`, 502). A `timeout` raises `timeout` (408) when nothing answered in time.
 */
import { startDeadline } from '../deadlines.js';
import { Activity, ProcessError, type ProcessInstance } from '../instance.js';
import { isRefusal, refuse, timeoutTimer } from './activity.js';
import type { Handler, StepRun } from './handler.js';
import { waitForTask } from './human.js';
import type { StepOf } from '../../process/index.js';
import { isRecord } from '../../json/guards.js';

export const call: Handler<'call'> = (step, run) => {
  const { instance, thread, ctx, runner } = run;
  const body = step.body;
  const bindings = { thread, frame: ctx };
  const from = isRecord(step.node.input) && typeof step.node.input.from === 'string' ? instance.evaluate(step.node.input.from, bindings, `${step.pointer}/input/from`) : undefined;
  const input = { ...(isRecord(from) ? from : {}), ...instance.evaluateMap(body.input ?? {}, bindings, `${step.pointer}/call/input`) };
  const activity = new Activity('call', step, thread, instance);
  if (body.due !== undefined) startDeadline(instance, { key: step.id, due: body.due, bindings, owner: activity.timers, pausable: thread.scope.kind === 'stage' });
  if (body.timeout !== undefined) {
    timeoutTimer(run, step, activity, body.timeout, () => {
      activity.close('timed_out');
      runner.raise(thread, { type: 'timeout', status: 408, detail: `step '${step.id}' got no answer in time` });
    });
  }
  if (typeof body.skill === 'string') callSkill(run, step, activity, body.skill, input);
  else if (typeof body.agent === 'string') callAgent(run, step, activity, body.agent, input);
  else callProcess(run, step, activity, String(body.process), input);
  return { kind: 'wait' };
};

function callSkill(run: StepRun, step: StepOf<'call'>, activity: Activity, skill: string, input: Record<string, unknown>): void {
  const refusal = run.instance.world.invokeSkill(activity, skill, input);
  if (isRefusal(refusal)) return refuse(run, activity, refusal);
  activity.onAnswer = (answer) => {
    if (answer.kind === 'result') run.runner.resume(activity, 'completed', () => run.runner.complete(run.thread, step, { result: answer.output }, run.ctx));
    if (answer.kind === 'error') {
      run.runner.resume(activity, 'failed', () => {
        throw new ProcessError({ status: 502, ...answer.problem, type: answer.problem.type || 'skill_failed' });
      });
    }
  };
}

function callAgent(run: StepRun, step: StepOf<'call'>, activity: Activity, agent: string, input: Record<string, unknown>): void {
  const title = typeof step.node.displayName === 'string' ? step.node.displayName : step.id;
  const task = run.instance.world.invokeAgent(activity, agent, { taskType: '', title, candidates: [`agent:${agent}`], customFields: {} }, input);
  if (isRefusal(task)) return refuse(run, activity, task);
  waitForTask(run, step, activity, task, () => undefined);
}

function callProcess(run: StepRun, step: StepOf<'call'>, activity: Activity, process: string, input: Record<string, unknown>): void {
  const refusal = run.instance.world.startChild(activity, process, input);
  if (isRefusal(refusal)) return refuse(run, activity, refusal);
  activity.onCancel = () => activity.child && run.instance.world.cancelChild(activity.child);
  activity.onAnswer = (answer) => {
    if (answer.kind !== 'child') return;
    const child = answer.child;
    if (child.status === 'completed') {
      run.runner.resume(activity, 'completed', () => run.runner.complete(run.thread, step, { result: { outcome: child.outcome ?? null, data: child.data } }, run.ctx));
      return;
    }
    run.runner.resume(activity, 'failed', () => {
      throw new ProcessError(childProblem(child));
    });
  };
}

/** The error a child's failure or cancellation is in its parent. */
function childProblem(child: ProcessInstance): { type: string; status: number; detail: string } {
  const type = child.status === 'cancelled' ? 'child_cancelled' : (child.error?.type ?? 'child_failed');
  return { type, status: 502, detail: `process ${child.process.key} (${child.key}) ${child.status}${child.error?.detail ? `: ${child.error.detail}` : ''}` };
}
