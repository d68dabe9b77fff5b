/**
 * `human`: a task for a person — its title (the step's `displayName` or id by default), the candidates of its
 * assign chain, `customFields` prefilled (null values dropped), its deadline and escalations, `input.from` — and
 * the step waits for it. A completed task's custom fields are checked against the step's form (`form_invalid`,
 * 422) and are its result; a task cancelled by its participant is the error `task_cancelled` (409).
 */
import { startDeadline } from '../deadlines.js';
import { Activity, ProcessError, type Bindings, type ProcessInstance, type TaskRecord } from '../instance.js';
import { chainCandidates, isRefusal, refuse } from './activity.js';
import type { Handler, StepRun } from './handler.js';
import type { StepOf } from '../../process/index.js';
import { isRecord } from '../../json/guards.js';

export const human: Handler<'human'> = (step, run) => {
  const { instance, thread, ctx } = run;
  const body = step.body;
  const bindings = { thread, frame: ctx };
  const pointer = `${step.pointer}/human`;
  const title = typeof body.title === 'string' ? String(instance.evaluate(body.title, bindings, `${pointer}/title`)) : displayName(step);
  const candidates = chainCandidates(instance, body.assign, bindings, `${pointer}/assign`);
  const customFields = prefill(instance, body.customFields, bindings, `${pointer}/customFields`);
  const from = isRecord(step.node.input) && typeof step.node.input.from === 'string' ? instance.evaluate(step.node.input.from, bindings, `${step.pointer}/input/from`) : undefined;
  const activity = new Activity('human', step, thread, instance);
  const due = body.due === undefined ? undefined : startDeadline(instance, {
    key: step.id, due: body.due, bindings, owner: activity.timers, pausable: thread.scope.kind === 'stage', escalations: body.escalations ?? [],
    task: () => activity.task, raise: (problem) => run.runner.raise(thread, problem),
    reassign: (to) => activity.task && instance.world.reassignTask(activity.task, chainCandidates(instance, to, bindings, `${pointer}/escalations`)),
  });
  const task = instance.world.createTask(activity, {
    taskType: String(body.taskType), title, candidates, customFields,
    ...(due !== undefined ? { due: instance.iso(due) } : {}), ...(from !== undefined ? { input: from } : {}),
  });
  if (isRefusal(task)) {
    refuse(run, activity, task);
    return { kind: 'wait' };
  }
  waitForTask(run, step, activity, task, () => formProblems(instance, body.form?.schema, task));
  return { kind: 'wait' };
};

/**
 * The step waits on its task: completed, it goes on with the task's fields (after `check`, which may find them
 * wrong); cancelled by its participant, the step fails with `task_cancelled`. Shared by agent calls.
 */
export function waitForTask(run: StepRun, step: StepOf<'human' | 'call'>, activity: Activity, task: TaskRecord, check: () => string | undefined): void {
  const { instance, thread, ctx, runner } = run;
  activity.task = task;
  thread.lastTask = task;
  instance.lastTask = task;
  activity.onCancel = () => instance.world.cancelTask(task);
  activity.onAnswer = (answer) => {
    if (answer.kind !== 'task') return;
    if (answer.cancelled) {
      runner.resume(activity, 'withdrawn', () => {
        throw new ProcessError({ type: 'task_cancelled', status: 409, detail: `the task of step '${step.id}' was cancelled` });
      });
      return;
    }
    runner.resume(activity, 'completed', () => {
      const problem = check();
      if (problem !== undefined) throw new ProcessError({ type: 'form_invalid', status: 422, detail: problem });
      runner.complete(thread, step, { result: task.customFields, task }, ctx);
    });
  };
}

function displayName(step: StepOf<'human'>): string {
  return typeof step.node.displayName === 'string' ? step.node.displayName : step.id;
}

/** `customFields` evaluated; a null value leaves the field to the person. */
function prefill(instance: ProcessInstance, fields: Readonly<Record<string, unknown>> | undefined, bindings: Bindings, pointer: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, source] of Object.entries(fields ?? {})) {
    const value = typeof source === 'string' ? instance.evaluate(source, bindings, `${pointer}/${field}`) : source;
    if (value !== null && value !== undefined) out[field] = value;
  }
  return out;
}

/** The first five problems of a completed task's fields against the step's form schema. */
function formProblems(instance: ProcessInstance, schema: unknown, task: TaskRecord): string | undefined {
  if (schema === undefined) return undefined;
  const problems = instance.world.schemas.problems(schema, task.customFields, 5);
  return problems.length === 0 ? undefined : `the fields of the task do not match the form: ${problems.join('; ')}`;
}
