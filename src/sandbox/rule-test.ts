/**
 * `subject: rule`: one work rule against one input (an observation, an event or a schedule slot). The trigger
 * decides whether the rule looks at the input at all (`skipped`), the condition whether it acts (`not_matched`),
 * the interpretation skill may fail it (`failed`), and the action templates give the work it ensures.
 */
import { ScenarioFailure } from './result.js';
import { conditionHolds, renderDeep, renderTemplate } from './templates.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { checkNoSideEffects, checkWorkList, emptyLog, invokeSkill } from './work.js';
import { isRecord } from './values.js';

type RuleResult = 'matched' | 'not_matched' | 'skipped' | 'failed';

export function ruleRun(ctx: SubjectContext): SubjectRun {
  const key = String(ctx.test.rule);
  const rule = ctx.catalog.object('WorkRule', key);
  if (rule === undefined) throw new ScenarioFailure('unknown_subject', `rule '${key}' — no such WorkRule in the package`, { path: '/rule' });
  const given = isRecord(ctx.test.given) ? ctx.test.given : {};
  const log = emptyLog();
  const context = inputContext(given, ctx.catalog.settingsWith(isRecord(given.settings) ? given.settings : {}));
  let reason = '';
  const result = ((): RuleResult => {
    const trigger = isRecord(rule.spec.trigger) ? rule.spec.trigger : {};
    if (!triggered(trigger, given)) {
      reason = `the input is not a ${String(trigger.kind)} of type ${String(trigger.type ?? '(any)')}`;
      return 'skipped';
    }
    if (!conditionHolds(rule.spec.condition, context)) {
      reason = 'the condition is false';
      return 'not_matched';
    }
    const interpretation = isRecord(rule.spec.interpretation) ? rule.spec.interpretation : undefined;
    if (interpretation !== undefined) {
      const inputs = renderDeep(interpretation.inputs ?? {}, context) as Record<string, unknown>;
      const answer = invokeSkill(log, ctx, String(interpretation.skill), inputs, 'interpretation');
      if ('error' in answer) {
        reason = `${String(interpretation.skill)} failed: ${answer.error.type}${answer.error.detail ? ` — ${answer.error.detail}` : ''}`;
        return 'failed';
      }
      context.skill = { output: answer.output };
    }
    const action = isRecord(rule.spec.action) ? rule.spec.action : {};
    const fields = isRecord(action.fields) ? action.fields : {};
    const work: Record<string, unknown> = { action: action.kind, type: renderTemplate(String(action.taskType ?? ''), context) };
    for (const [name, value] of Object.entries(fields)) work[name] = renderDeep(value, context);
    if (typeof action.dedupKeyTemplate === 'string') work.dedupKey = renderTemplate(action.dedupKeyTemplate, context);
    if (isRecord(work.relations)) work.relation = work.relations;
    log.ensureWork.push(work);
    return 'matched';
  })();
  return {
    async step(step) {
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

function triggered(trigger: Record<string, unknown>, given: Record<string, unknown>): boolean {
  const type = trigger.type;
  if (trigger.kind === 'observation') return isRecord(given.observation) && (type === undefined || given.observation.kind === type);
  if (trigger.kind === 'event') return isRecord(given.event) && (type === undefined || given.event.type === type);
  if (trigger.kind === 'schedule') return isRecord(given.schedule);
  return false;
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

