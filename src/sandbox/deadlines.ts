/**
 * Deadlines of the instance and of its work (`due`): the SLA record a scenario inspects, its warning and breach
 * in virtual time, what an approval does when it is due (`onDue`), and the escalations of a task. A deadline
 * lives in the scope of the work it is about: when the work ends, its timers go.
 */
import type { SandboxCalendar } from './calendar.js';
import type { Scope } from './clock.js';
import { deadline, pointOf, type Deadline, type DueContext } from './due.js';
import { ProcessError, type Approval, type ProcessInstance, type SlaRecord, type StepContext, type TaskRecord } from './instance.js';
import { ScenarioFailure } from './result.js';
import { isRecord } from '../json/guards.js';

/** What a deadline acts on besides recording its breach. */
export interface DeadlineWork {
  escalations?: readonly Readonly<Record<string, unknown>>[];
  task?: TaskRecord;
  onDue?: unknown;
  approval?: Approval;
}

/** Starts the deadline `due` of `key` (a step id, or `process`) now, with its warning, breach and escalations. */
export function startDeadline(instance: ProcessInstance, key: string, due: unknown, scope: Scope, ctx: StepContext, work: DeadlineWork): SlaRecord {
  const computed = computeDeadline(instance, key, due, ctx);
  const record: SlaRecord = { key, due: computed.at, state: 'ok', open: true, provisional: computed.provisional };
  if (computed.warnAt !== undefined) record.warnAt = computed.warnAt;
  instance.sla.set(key, record);
  // Timers of an open deadline of a live instance; the order they are set in breaks ties of the same moment.
  const at = (when: number, id: string, fire: () => void) => scope.onEnd(instance.clock.schedule(when, () => {
    if (record.open && instance.isLive()) fire();
  }, { id, provisional: computed.provisional }));
  if (computed.warnAt !== undefined) at(computed.warnAt, `${key}.warning`, () => warn(instance, record));
  at(computed.at, `${key}.due`, () => breach(instance, record, work));
  (work.escalations ?? []).forEach((escalation, i) => {
    const when = escalation.after === 'due' ? computed.at : pointOf(escalation.after, computed.at, { evaluate: (source) => instance.evaluate(source, ctx) });
    at(when, `${key}.escalation.${i + 1}`, () => escalate(instance, key, escalation, ctx, work.task));
  });
  return record;
}

/** The work is over: its deadline no longer warns, breaches or escalates. */
export function closeDeadline(instance: ProcessInstance, key: string): void {
  const record = instance.sla.get(key);
  if (record !== undefined) record.open = false;
}

/** The moment `due` names; one that cannot be computed is the process error the core would raise. */
function computeDeadline(instance: ProcessInstance, key: string, due: unknown, ctx: StepContext): Deadline {
  try {
    return deadline(due, instance.clock.now, dueContext(instance, ctx));
  } catch (error) {
    if (error instanceof ProcessError || error instanceof ScenarioFailure) throw error;
    throw new ProcessError({ type: 'expression_error', detail: `the deadline of '${key}': ${(error as Error).message}` });
  }
}

function warn(instance: ProcessInstance, record: SlaRecord): void {
  if (record.state === 'ok') record.state = 'warning';
  instance.record('process.sla_warning', record.key);
}

/** The deadline passed: an approval may decide by it (`onDue: approve | reject`) or escalate. */
function breach(instance: ProcessInstance, record: SlaRecord, work: DeadlineWork): void {
  record.state = 'breached';
  instance.record('process.sla_breached', record.key);
  if (work.approval !== undefined && (work.onDue === 'approve' || work.onDue === 'reject')) {
    work.approval.decide?.(work.onDue === 'approve' ? 'approved' : 'rejected');
  } else if (work.onDue === 'escalate') {
    instance.record('process.escalated', record.key, { action: 'escalate' });
  }
}

/** An escalation of a task: `reassign` gives it to the `to` chain, `raise` fails its step with `error`. */
function escalate(instance: ProcessInstance, key: string, escalation: Readonly<Record<string, unknown>>, ctx: StepContext, task: TaskRecord | undefined): void {
  const action = String(escalation.action);
  instance.record('process.escalated', key, { action });
  if (action === 'reassign' && task !== undefined && escalation.to !== undefined) {
    const assignment = instance.assignment(escalation.to, ctx);
    task.assignee = assignment.assignee;
    task.candidates = assignment.candidates;
    if (assignment.via !== undefined) task.via = assignment.via;
  }
  if (action === 'raise' && task?.fail !== undefined) {
    task.fail(new ProcessError(isRecord(escalation.error) ? instance.problemOf(escalation.error, ctx) : { type: 'escalation' }));
  }
}

function dueContext(instance: ProcessInstance, ctx: StepContext): DueContext {
  return {
    evaluate: (source) => instance.evaluate(source, ctx),
    calendar: (key) => calendarOf(instance, key),
    ...(instance.defaultCalendar !== undefined ? { defaultCalendar: instance.defaultCalendar } : {}),
  };
}

/** The calendar working units count by; a deadline in working units without one is a process error. */
function calendarOf(instance: ProcessInstance, key: string | undefined): SandboxCalendar {
  if (key === undefined) throw new ProcessError({ type: 'unknown_calendar', detail: 'working units need a calendar: set spec.calendar of the process or calendar of the deadline' });
  const calendar = instance.options.catalog.calendar(key);
  if (calendar === undefined) throw new ProcessError({ type: 'unknown_calendar', detail: `no calendar '${key}'` });
  return calendar;
}
