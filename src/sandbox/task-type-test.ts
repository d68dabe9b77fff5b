/**
 * `subject: taskType`: one task of a type, as a given, and what its gate outcomes, acceptance criteria and
 * completion actions do with it. Outcome actions run in order: `invokeSkill` (through the mocks, then
 * `onSuccess` or `onFailure`), `completeTask`, `transition`, `comment`, `ensureWork`.
 */
import { countsOf, taskTypeCoverageItems } from './coverage.js';
import { ScenarioFailure } from './result.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { MissingValue, resolvePaths } from './templates.js';
import { containsValue, show } from './values.js';
import { checkNoSideEffects, checkWorkList, emptyLog, invokeSkill, type WorkLog } from './work.js';
import { isRecord } from '../json/guards.js';

type Spec = Record<string, unknown>;

interface Task {
  id: string;
  publicId: string;
  type: string;
  title?: unknown;
  status: string;
  assignee?: unknown;
  customFields: Record<string, unknown>;
}

export function taskTypeRun(ctx: SubjectContext): SubjectRun {
  const key = String(ctx.test.taskType);
  const type = ctx.catalog.object('TaskType', key);
  if (type === undefined) throw new ScenarioFailure('unknown_subject', `task type '${key}' — no such TaskType in the package`, { path: '/taskType' });
  const spec = type.spec;
  const given = isRecord(ctx.test.given) ? ctx.test.given : {};
  const givenTask = isRecord(given.task) ? given.task : {};
  const lifecycle = isRecord(spec.lifecycleSchema) ? spec.lifecycleSchema : {};
  const statuses = Array.isArray(lifecycle.statuses) ? lifecycle.statuses.filter(isRecord) : [];
  const task: Task = {
    id: 'task-1', publicId: 'T-1', type: key,
    status: typeof givenTask.status === 'string' ? givenTask.status : String(lifecycle.initialStatus ?? statuses[0]?.key ?? 'todo'),
    customFields: isRecord(givenTask.customFields) ? { ...givenTask.customFields } : {},
    ...(givenTask.title !== undefined ? { title: givenTask.title } : {}),
    ...(givenTask.assignee !== undefined ? { assignee: givenTask.assignee } : {}),
  };
  const principals = isRecord(given.principals) ? given.principals : {};
  const log = emptyLog();
  const reached = { outcomes: new Set<string>(), completion: new Set<string>(), acceptance: new Set<string>() };

  const complete = () => {
    task.status = String(lifecycle.completionStatus ?? statuses.find((s) => s.category === 'terminal_success')?.key ?? 'done');
  };
  const run = (actions: unknown, scope: Record<string, unknown>): void => {
    for (const action of Array.isArray(actions) ? actions.filter(isRecord) : []) runAction(action, scope);
  };
  const runAction = (action: Spec, scope: Record<string, unknown>): void => {
    if (isRecord(action.invokeSkill)) {
      const call = action.invokeSkill;
      let inputs: Record<string, unknown>;
      try {
        inputs = resolvePaths(call.inputs ?? {}, scope) as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof MissingValue)) throw error;
        log.comments.push(error.message);
        return run(call.onFailure, scope);
      }
      const answer = invokeSkill(log, ctx, String(call.skill), inputs, 'outcome');
      const expected = isRecord(call.expect) ? call.expect : undefined;
      const failed = 'error' in answer || (expected !== undefined && !containsValue(expected, answer.output));
      return run(failed ? call.onFailure : call.onSuccess, { ...scope, skill: 'output' in answer ? { output: answer.output } : {} });
    }
    if (isRecord(action.completeTask)) return complete();
    if (isRecord(action.transition)) {
      task.status = String(action.transition.status);
      return;
    }
    if (isRecord(action.comment)) {
      log.comments.push(String(resolvePaths(action.comment.body, scope)));
      return;
    }
    if (isRecord(action.ensureWork)) log.ensureWork.push(resolvePaths(action.ensureWork, scope) as Record<string, unknown>);
  };
  const scopeOf = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ task, ...extra });

  return {
    coverage: () => countsOf(taskTypeCoverageItems(spec), reached),
    step(step) {
      if (isRecord(step.approve)) return approve(step.approve);
      if (isRecord(step.verify)) {
        reached.acceptance.add(String(step.verify.check));
        return;
      }
      if (isRecord(step.complete)) {
        if (isRecord(step.complete.output)) Object.assign(task.customFields, step.complete.output);
        complete();
        const completion = isRecord(spec.completionSchema) && isRecord(spec.completionSchema.onComplete) ? spec.completionSchema.onComplete : {};
        (Array.isArray(completion.actions) ? completion.actions : []).forEach((_, i) => reached.completion.add(`onComplete/${i}`));
        run(completion.actions, scopeOf({ output: step.complete.output ?? {} }));
        return;
      }
      if (isRecord(step.expect)) return expectOf(step.expect, task, statuses, log);
    },
  };

  function approve(approval: Spec): void {
    const by = typeof approval.by === 'string' ? approval.by : undefined;
    const refused = by === undefined ? undefined : refusal(by);
    if (typeof approval.expectRefused === 'string') {
      if (refused === approval.expectRefused) return;
      throw new ScenarioFailure('expectation_failed', `expected the core to refuse the decision of ${by ?? 'nobody'} with ${approval.expectRefused}, ${refused === undefined ? 'and it accepted it' : `and it refused it with ${refused}`}`, { expected: approval.expectRefused, actual: refused ?? 'accepted' });
    }
    if (refused !== undefined) throw new ScenarioFailure('step_refused', `the core refuses the decision of ${by}: ${refused}`, { actual: refused });
    const gates = isRecord(spec.approvalSchema) && isRecord(spec.approvalSchema.gates) ? spec.approvalSchema.gates : {};
    const gate = gates[typeof approval.gate === 'string' ? approval.gate : 'default'];
    if (!isRecord(gate)) throw new ScenarioFailure('unknown_gate', `task type '${key}' has no approval gate '${String(approval.gate ?? 'default')}'`);
    const outcomes = isRecord(gate.outcomes) ? gate.outcomes : {};
    reached.outcomes.add(`${typeof approval.gate === 'string' ? approval.gate : 'default'}/${String(approval.decision)}`);
    run(outcomes[String(approval.decision)], scopeOf({ approval: { decision: approval.decision, by, comment: approval.comment ?? '' } }));
  }

  /** The core's refusal of a decider: not holding an executor role of the type, when the test names its people. */
  function refusal(by: string): string | undefined {
    const roles = Array.isArray(spec.executorRoles) ? spec.executorRoles.map(String) : [];
    const named = roles.filter((role) => Array.isArray(principals[role]));
    if (named.length === 0) return undefined;
    return named.some((role) => (principals[role] as unknown[]).includes(by)) ? undefined : 'not_eligible';
  }
}

function expectOf(expect: Spec, task: Task, statuses: Spec[], log: WorkLog): void {
  checkWorkList('invokeSkill', expect.invokeSkill, log.invokeSkill);
  checkWorkList('ensureWork', expect.ensureWork, log.ensureWork);
  if (isRecord(expect.status)) {
    const category = statuses.find((s) => s.key === task.status)?.category;
    const actual = { key: task.status, category };
    if (!containsValue(expect.status, actual)) {
      throw new ScenarioFailure('expectation_failed', `status: expected ${show(expect.status)}, got ${show(actual)}`, { expected: expect.status, actual, path: 'status' });
    }
  }
  if (Array.isArray(expect.comments)) {
    for (const text of expect.comments.map(String)) {
      if (!log.comments.some((comment) => comment.includes(text))) {
        throw new ScenarioFailure('expectation_failed', `comments: expected one containing '${text}', got ${log.comments.length === 0 ? 'no comments' : show(log.comments)}`, { expected: expect.comments, actual: log.comments, path: 'comments' });
      }
    }
  }
  if (expect.noSideEffects === true) checkNoSideEffects(log.sideEffects, log.ensureWork);
}
