/**
 * `human`: a task for a person, assigned through the step's chain, prefilled with custom fields, with a deadline
 * and escalations; the step waits until a scenario (or a work rule) completes or cancels the task, and the form
 * data is its result.
 */
import type { StepOf } from '../../process/index.js';
import { settle } from '../clock.js';
import { closeDeadline, startDeadline } from '../deadlines.js';
import type { ProcessInstance, StepContext, TaskRecord } from '../instance.js';
import { ScenarioFailure } from '../result.js';
import type { Handler } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const human: Handler<'human'> = async (step, { instance, scope, ctx }) => {
  const body = step.body;
  const taskType = String(body.taskType);
  const customFields = body.customFields === undefined ? {} : prefilledFields(instance, step, taskType, ctx);
  const task = instance.createTask(step.id, 'human', taskType, instance.assignment(body.assign, ctx), customFields);
  if (typeof body.title === 'string') task.title = String(instance.evaluate(body.title, ctx));
  const input = step.node.input;
  if (isRecord(input) && typeof input.from === 'string') task.input = instance.evaluate(input.from, ctx);
  const work = scope.child();
  if (body.due !== undefined) {
    task.due = instance.clock.iso(startDeadline(instance, step.id, body.due, work, { ...ctx, task }, { escalations: body.escalations ?? [], task }).due);
  }
  try {
    const output = await work.wait<Record<string, unknown> | undefined>((resolve, fail) => {
      task.resolve = resolve;
      task.fail = fail;
      return () => {
        task.resolve = undefined;
        task.fail = undefined;
      };
    });
    return output === undefined ? { task, skipOutput: true } : { result: output, task };
  } finally {
    closeDeadline(instance, step.id);
    work.close();
    work.cancel();
    if (task.state === 'open') task.state = 'cancelled';
  }
};

/** `customFields` evaluated (null leaves a field to the person), checked against the task type's `fieldSchema`. */
function prefilledFields(instance: ProcessInstance, step: StepOf<'human'>, taskType: string, ctx: StepContext): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [field, source] of Object.entries(step.body.customFields ?? {})) {
    const value = typeof source === 'string' ? instance.evaluate(source, ctx) : source;
    if (value !== null && value !== undefined) fields[field] = value;
  }
  const fieldSchema = instance.options.catalog.spec('TaskType', taskType)?.fieldSchema;
  const problem = fieldSchema === undefined ? undefined : instance.options.schemas.problem(fieldSchema, fields);
  if (problem !== undefined) throw new ScenarioFailure('custom_fields_invalid', `the customFields of step '${step.id}' do not match the fieldSchema of task type '${taskType}': ${problem}`);
  return fields;
}

/** The JSON Schema of the form of the human step `id`, if it has one. */
export function formSchema(instance: ProcessInstance, id: string): unknown {
  const step = instance.model.step(id);
  return step?.kind === 'human' ? step.body.form?.schema : undefined;
}

/** A person (or a work rule) completes or cancels a task: the step waiting on it goes on with `output`. */
export async function closeTask(instance: ProcessInstance, task: TaskRecord, cancel: boolean, by: string | undefined, output: Record<string, unknown> | undefined): Promise<void> {
  if (cancel) {
    task.state = 'cancelled';
    task.status = instance.lifecycleStatus(task.taskType, 'terminal_cancelled') ?? 'cancelled';
    instance.record('process.task_cancelled', task.step);
  } else {
    task.state = 'completed';
    task.status = instance.lifecycleStatus(task.taskType, 'terminal_success', 'completionStatus') ?? 'done';
    instance.record('process.task_completed', task.step);
  }
  if (by !== undefined) {
    task.assignee = by;
    task.completedBy = by;
  }
  task.resolve?.(cancel ? undefined : (output ?? {}));
  await settle();
}
