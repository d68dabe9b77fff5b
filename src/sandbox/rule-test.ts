/**
 * `subject: rule`: one work rule against one input (an observation, an event or a schedule slot). The trigger
 * decides whether the rule looks at the input at all (`skipped`), the condition whether it acts (`not_matched`),
 * the interpretation skill may fail it (`failed`), and the action templates give the work it ensures.
 */
import { countsOf, ruleCoverageItems } from './coverage.js';
import { ScenarioFailure } from './result.js';
import { conditionHolds, renderDeep, renderTemplate } from './templates.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { checkNoSideEffects, checkWorkList, emptyLog, invokeSkill, type WorkLog } from './work.js';
import { isRecord } from '../json/guards.js';

export type RuleResult = 'matched' | 'not_matched' | 'skipped' | 'failed';

/** What a rule is offered: one input of a trigger kind, and the roots its condition and templates read. */
export interface RuleInput {
  kind: 'observation' | 'event' | 'schedule';
  /** The observation's kind or the event's type. */
  type?: string;
  /**
   * Who wrote the input, when the input names an author at all: an observation a process scenario emits does
   * (`emit.by`), the `given` of a rule test does not — and then `trigger.agent` / `trigger.actorId` filter nothing.
   */
  author?: { by?: string };
  context: Record<string, unknown>;
}

export interface RuleDecision {
  result: RuleResult;
  /** Why the rule did not act; empty when it matched. */
  reason: string;
  /** The work its action asks for (with `{{…}}` templates rendered), when it matched. */
  work?: Record<string, unknown>;
}

export function ruleRun(ctx: SubjectContext): SubjectRun {
  const key = String(ctx.test.rule);
  const rule = ctx.catalog.object('WorkRule', key);
  if (rule === undefined) throw new ScenarioFailure('unknown_subject', `rule '${key}' — no such WorkRule in the package`, { path: '/rule' });
  const given = isRecord(ctx.test.given) ? ctx.test.given : {};
  const log = emptyLog();
  const { result, reason, work } = decideRule(rule.spec, givenInput(given, ctx.catalog.settingsWith(isRecord(given.settings) ? given.settings : {})), ctx, log);
  if (work !== undefined) log.ensureWork.push(work);
  const branch = result === 'not_matched' ? ['condition:false'] : result === 'skipped' ? [] : ['condition:true'];
  return {
    coverage: () => countsOf(ruleCoverageItems(rule.spec), { outcomes: new Set([result]), branches: new Set(branch) }),
    step(step) {
      const expect = isRecord(step.expect) ? step.expect : {};
      if (typeof expect.result === 'string' && expect.result !== result) {
        throw new ScenarioFailure('expectation_failed', `result: expected ${expect.result}, got ${result}${reason ? ` (${reason})` : ''}`, { expected: expect.result, actual: result, path: 'result' });
      }
      checkWorkList('invokeSkill', expect.invokeSkill, log.invokeSkill);
      checkWorkList('ensureWork', expect.ensureWork, log.ensureWork);
      if (expect.noSideEffects === true) checkNoSideEffects(log.sideEffects, log.ensureWork);
    },
  };
}

/**
 * One rule's decision on one input, as the core takes it: the trigger decides whether the rule looks at the
 * input at all (`skipped`), the condition whether it acts (`not_matched`), the interpretation skill may fail it
 * (`failed`, its output is `skill.output` afterwards), and the action's templates give the work.
 */
export function decideRule(spec: Record<string, unknown>, input: RuleInput, ctx: Omit<SubjectContext, 'test'>, log: WorkLog): RuleDecision {
  const context = { ...input.context };
  const trigger = isRecord(spec.trigger) ? spec.trigger : {};
  if (!triggered(trigger, input)) {
    return { result: 'skipped', reason: `the input is not ${/^[aeiou]/.test(String(trigger.kind)) ? 'an' : 'a'} ${String(trigger.kind)} of type ${String(trigger.type ?? '(any)')}` };
  }
  const author = input.author === undefined ? undefined : expectedAuthor(trigger, ctx);
  if (author !== undefined && input.author?.by !== author) {
    return { result: 'skipped', reason: `the ${input.kind} is by ${input.author?.by ?? 'nobody'}, not by ${author}` };
  }
  if (!conditionHolds(spec.condition, context)) return { result: 'not_matched', reason: 'the condition is false' };
  const interpretation = isRecord(spec.interpretation) ? spec.interpretation : undefined;
  if (interpretation !== undefined) {
    const inputs = renderDeep(interpretation.inputs ?? {}, context) as Record<string, unknown>;
    const answer = invokeSkill(log, ctx, String(interpretation.skill), inputs, 'interpretation');
    if ('error' in answer) {
      return { result: 'failed', reason: `${String(interpretation.skill)} failed: ${answer.error.type}${answer.error.detail ? ` — ${answer.error.detail}` : ''}` };
    }
    context.skill = { output: answer.output };
  }
  return { result: 'matched', reason: '', work: workOf(isRecord(spec.action) ? spec.action : {}, context) };
}

function workOf(action: Record<string, unknown>, context: Record<string, unknown>): Record<string, unknown> {
  const fields = isRecord(action.fields) ? action.fields : {};
  const work: Record<string, unknown> = { action: action.kind, type: renderTemplate(String(action.taskType ?? ''), context) };
  for (const [name, value] of Object.entries(fields)) work[name] = renderDeep(value, context);
  if (typeof action.dedupKeyTemplate === 'string') work.dedupKey = renderTemplate(action.dedupKeyTemplate, context);
  if (isRecord(work.relations)) work.relation = work.relations;
  return work;
}

function triggered(trigger: Record<string, unknown>, input: RuleInput): boolean {
  if (trigger.kind !== input.kind) return false;
  return input.kind === 'schedule' || trigger.type === undefined || trigger.type === input.type;
}

/** The author a trigger filters on: `agent:<key>` of `trigger.agent` (a key or an installation variable), or `trigger.actorId`. */
function expectedAuthor(trigger: Record<string, unknown>, ctx: Omit<SubjectContext, 'test'>): string | undefined {
  if (typeof trigger.agent === 'string') {
    const agent = trigger.agent.replace(/^\$\{([A-Z][A-Z0-9_]*)\}$/, (whole, name: string) => ctx.catalog.variableValue(ctx.variables, name) ?? whole);
    return `agent:${agent}`;
  }
  return typeof trigger.actorId === 'string' ? trigger.actorId : undefined;
}

/** The input a rule test gives: exactly one of an observation, an event, a schedule slot. */
function givenInput(given: Record<string, unknown>, settings: Record<string, unknown>): RuleInput {
  const context = inputContext(given, settings);
  if (isRecord(given.observation)) return { kind: 'observation', type: String(given.observation.kind), context };
  if (isRecord(given.event)) return { kind: 'event', type: String(given.event.type), context };
  return { kind: 'schedule', context };
}

/** The roots a rule's condition and templates read: payload, event, task, settings, variables. */
function inputContext(given: Record<string, unknown>, settings: Record<string, unknown>): Record<string, unknown> {
  const context: Record<string, unknown> = { settings, variables: isRecord(given.variables) ? given.variables : {} };
  if (isRecord(given.observation)) context.payload = given.observation;
  if (isRecord(given.event)) {
    context.event = given.event;
    context.payload = isRecord(given.event.payload) ? given.event.payload : {};
  }
  if (isRecord(given.schedule)) context.schedule = { at: given.schedule.at ?? given.clock };
  if (isRecord(given.task)) context.task = { id: 'task-1', ...given.task };
  return context;
}

