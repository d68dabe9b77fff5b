/**
 * Work rules on the tasks of a process scenario, as the core's sandbox evaluates them: only the package's
 * rules with `action.target: task`, in key order, on observations emitted with `task: <step>` (bound to the
 * newest task of that step, `payload.taskId`), after the instances took the observation. A rule's trigger must
 * match (kind, type, source — who emitted it is not checked); a rule that interprets with a skill aborts the
 * test. The condition reads `trigger`, `payload` (the emitted payload with `kind`, `source`, `taskId`), `goal`,
 * `task` and `settings`. Decisions: `not_matched`; `skipped` (`no_bound_task`, `bound_task_type_not_listed`,
 * `already_done`, `already_closed`); `failed` (`bound_task_not_found`); `matched` — `complete_work` completes
 * the task (no output, the prefill stays), `cancel_work` cancels it. `expect.rules` compares the decisions
 * since the previous `expect`.
 */
import type { PackageObject } from '../model/package.js';
import type { EngineEvent, TaskRecord } from './instance.js';
import { ScenarioFailure } from './result.js';
import type { RuleResult } from './rule-test.js';
import type { SubjectContext } from './subject.js';
import { conditionHolds } from './templates.js';
import { show } from './values.js';
import type { Sandbox } from './world.js';
import { isRecord } from '../json/guards.js';

/** One decision, as `expect.rules[]` names it. */
export interface TaskRuleDecision {
  rule: string;
  action: string;
  /** The process step whose task the observation is bound to. */
  step: string;
  result: RuleResult;
  /** Why it did not act (a code); absent when it matched or its condition was false. */
  reason?: string;
}

export class TaskRules {
  readonly decisions: TaskRuleDecision[] = [];
  private readonly rules: PackageObject[];

  constructor(
    ctx: SubjectContext,
    private readonly world: Sandbox,
  ) {
    this.rules = ctx.catalog.ownObjects('WorkRule')
      .filter((rule) => isRecord(rule.spec.action) && rule.spec.action.target === 'task' && rule.spec.status !== 'disabled')
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Offers an observation emitted with `task: <step>` to every rule, and carries out what matched. */
  offer(event: EngineEvent, step: string | undefined): void {
    if (event.kind !== 'observation' || step === undefined) return;
    const taskId = typeof event.payload.taskId === 'string' ? event.payload.taskId : undefined;
    const task = taskId === undefined ? undefined : this.world.tasks.find((t) => t.id === taskId);
    for (const rule of this.rules) {
      const trigger = isRecord(rule.spec.trigger) ? rule.spec.trigger : {};
      if (trigger.kind !== 'observation' || (trigger.type !== undefined && trigger.type !== event.observation)) continue;
      if (typeof trigger.source === 'string' && trigger.source !== event.source) continue;
      if (rule.spec.interpretation !== undefined) {
        throw new ScenarioFailure('rule_interpretation_unsupported', `rule '${rule.key}' interprets the observation with a skill: the core's sandbox does not run such a rule in a process test`);
      }
      const action = rule.spec.action as Record<string, unknown>;
      const decision: TaskRuleDecision = { rule: rule.key, action: String(action.kind), step, ...this.decide(rule.spec, action, event, taskId, task) };
      this.decisions.push(decision);
      if (decision.result === 'matched' && task !== undefined) this.world.closeByRule(task, action.kind === 'cancel_work');
    }
  }

  private decide(spec: Record<string, unknown>, action: Record<string, unknown>, event: EngineEvent, taskId: string | undefined, task: TaskRecord | undefined): { result: RuleResult; reason?: string } {
    const context = {
      trigger: { kind: 'observation', type: event.observation, ref: event.id },
      payload: { ...event.payload, kind: event.observation, source: event.source ?? null, taskId: taskId ?? null },
      goal: null,
      task: task === undefined ? null : { id: task.id, typeKey: task.taskType, status: TASK_STATUS[task.state], systemStatusCategory: TASK_STATUS[task.state], assigneeId: task.assigneeId ?? task.assignee },
      settings: this.world.settings,
    };
    if (!conditionHolds(spec.condition, context)) return { result: 'not_matched' };
    if (taskId === undefined) return { result: 'skipped', reason: 'no_bound_task' };
    if (task === undefined) return { result: 'failed', reason: 'bound_task_not_found' };
    const types = Array.isArray(action.taskTypes) ? action.taskTypes.map(String) : [];
    if (!types.includes(task.taskType)) return { result: 'skipped', reason: 'bound_task_type_not_listed' };
    if (task.state !== 'open') return { result: 'skipped', reason: task.state === 'completed' ? 'already_done' : 'already_closed' };
    return { result: 'matched' };
  }
}

const TASK_STATUS: Record<TaskRecord['state'], string> = { open: 'todo', completed: 'done', cancelled: 'cancelled' };

/**
 * `expect.rules`: each decision given is among those since the previous `expect` — `rule`, `action`, `step`
 * and `result` compare exactly, `reason` as a part of the reason. An empty list expects no decision at all.
 */
export function checkRuleDecisions(expected: unknown, decisions: readonly TaskRuleDecision[]): ScenarioFailure | undefined {
  if (!Array.isArray(expected)) return undefined;
  const since = decisions.length === 0 ? 'none' : show(decisions);
  if (expected.length === 0 && decisions.length > 0) {
    return new ScenarioFailure('expectation_failed', `rules: expected no decision since the last expect, got ${since}`, { expected, actual: decisions, path: 'rules' });
  }
  const missing = expected.find((wanted) => !isRecord(wanted) || !decisions.some((decision) => fits(wanted, decision)));
  if (missing === undefined) return undefined;
  return new ScenarioFailure('expectation_failed', `rules: expected a decision ${show(missing)}, decisions since the last expect: ${since}`, { expected: missing, actual: decisions, path: 'rules' });
}

function fits(wanted: Record<string, unknown>, decision: TaskRuleDecision): boolean {
  return Object.entries(wanted).every(([field, value]) =>
    field === 'reason' ? typeof value === 'string' && (decision.reason ?? '').includes(value) : value === decision[field as keyof TaskRuleDecision]);
}
