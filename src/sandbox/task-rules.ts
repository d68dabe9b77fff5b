/**
 * Work rules on the tasks of a process scenario (`action.target: task`): an observation bound to a step's task
 * (`emit: {observation, task: <step>, by}`) is offered to each such rule of the package, which decides on it as
 * in a rule test; a rule that matches completes (`complete_work`) or cancels (`cancel_work`) that task, and the
 * process goes on as if a person had closed it. `expect.rules` compares the decisions since the previous expect.
 */
import type { PackageObject } from '../model/package.js';
import type { EngineEvent, ProcessRun, TaskRecord } from './engine.js';
import { ScenarioFailure } from './result.js';
import { decideRule, type RuleInput, type RuleResult } from './rule-test.js';
import type { SubjectContext } from './subject.js';
import { emptyLog } from './work.js';
import { show } from './values.js';
import { isRecord } from '../json/guards.js';

/** One decision, as `expect.rules[]` names it. */
export interface TaskRuleDecision {
  rule: string;
  action: string;
  /** The process step whose task the observation is bound to. */
  step: string;
  result: RuleResult;
  reason: string;
}

const CLOSING_ACTIONS = new Set(['complete_work', 'cancel_work']);

export class TaskRules {
  readonly decisions: TaskRuleDecision[] = [];
  private readonly log = emptyLog();
  private readonly rules: PackageObject[];

  constructor(
    private readonly ctx: SubjectContext,
    private readonly run: ProcessRun,
  ) {
    this.rules = ctx.catalog.ownObjects('WorkRule').filter((rule) => isRecord(rule.spec.action) && rule.spec.action.target === 'task');
  }

  /** Offers an observation bound to a task of the process to every rule, in package order, and carries out what matched. */
  async offer(event: EngineEvent): Promise<void> {
    const task = this.run.tasks.find((t) => t.id === event.task);
    if (event.kind !== 'observation' || task === undefined) return;
    for (const rule of this.rules) {
      const action = rule.spec.action as Record<string, unknown>;
      const decision: TaskRuleDecision = { rule: rule.key, action: String(action.kind), step: task.step, ...this.decide(rule.spec, event, task) };
      this.decisions.push(decision);
      if (decision.result !== 'matched') continue;
      const identity = isRecord(rule.spec.identity) && typeof rule.spec.identity.agent === 'string' ? `agent:${rule.spec.identity.agent}` : undefined;
      await this.run.closeByRule(task, action.kind === 'cancel_work', identity);
      if (this.run.fatal !== undefined) throw this.run.fatal;
    }
  }

  private decide(spec: Record<string, unknown>, event: EngineEvent, task: TaskRecord): { result: RuleResult; reason: string } {
    if (spec.status === 'disabled') return { result: 'skipped', reason: 'the rule is disabled' };
    const decision = decideRule(spec, this.inputOf(event, task), this.ctx, this.log);
    if (decision.result !== 'matched') return decision;
    const action = spec.action as Record<string, unknown>;
    const refusal = refusalOf(action, task);
    if (refusal !== undefined) return { result: 'failed', reason: refusal };
    return { result: 'matched', reason: `${action.kind === 'cancel_work' ? 'cancels' : 'completes'} the task of step '${task.step}'` };
  }

  /** The observation as the core gives it to rules (its `data` is the emitted payload), and the task it is bound to. */
  private inputOf(event: EngineEvent, task: TaskRecord): RuleInput {
    const observation: Record<string, unknown> = { kind: event.type, data: event.payload, task: task.id };
    if (event.source !== undefined) observation.source = event.source;
    if (event.actorId !== undefined) observation.actorId = event.actorId;
    const given = isRecord(this.ctx.test.given) ? this.ctx.test.given : {};
    const context = {
      payload: observation,
      task: { id: task.id, type: task.taskType, step: task.step, status: task.status, assignee: task.assignee, customFields: task.customFields },
      settings: this.run.settings,
      variables: isRecord(given.variables) ? given.variables : {},
    };
    return { kind: 'observation', type: event.type, author: { by: event.actorId }, context };
  }
}

/** Why a matched rule cannot close the task, if it cannot. */
function refusalOf(action: Record<string, unknown>, task: TaskRecord): string | undefined {
  if (!CLOSING_ACTIONS.has(String(action.kind))) return `${String(action.kind)} does not close a task: target: task is for complete_work and cancel_work`;
  const types = Array.isArray(action.taskTypes) ? action.taskTypes.map(String) : [];
  if (!types.includes(task.taskType)) return `the task of step '${task.step}' has type ${task.taskType}, which the rule may not close (taskTypes: ${types.join(', ') || 'none'})`;
  if (task.kind === 'approval') return `the task of step '${task.step}' is an approval: votes decide it, not rules`;
  if (task.state !== 'open') return `the task of step '${task.step}' is already ${task.state}`;
  return undefined;
}

/**
 * `expect.rules`: each decision given is among those since the previous expect — `rule`, `action`, `step` and
 * `result` compare exactly, `reason` as a part of the reason. An empty list expects no decision at all.
 */
export function checkRuleDecisions(expected: unknown, decisions: readonly TaskRuleDecision[]): void {
  if (!Array.isArray(expected)) return;
  const since = decisions.length === 0 ? 'none' : show(decisions);
  if (expected.length === 0 && decisions.length > 0) {
    throw new ScenarioFailure('expectation_failed', `rules: expected no decision since the last expect, got ${since}`, { expected, actual: decisions, path: 'rules' });
  }
  for (const wanted of expected) {
    if (isRecord(wanted) && decisions.some((decision) => fits(wanted, decision))) continue;
    throw new ScenarioFailure('expectation_failed', `rules: expected a decision ${show(wanted)}, decisions since the last expect: ${since}`, { expected: wanted, actual: decisions, path: 'rules' });
  }
}

function fits(wanted: Record<string, unknown>, decision: TaskRuleDecision): boolean {
  return Object.entries(wanted).every(([field, value]) =>
    field === 'reason' ? typeof value === 'string' && decision.reason.includes(value) : value === decision[field as keyof TaskRuleDecision]);
}
