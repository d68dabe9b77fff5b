/**
 * Deadlines (SLA) of the instance (`spec.due`) and of its work (`due` of human, approve, call, recall, listen):
 * the record `expect.sla` reads, the warning and the breach in virtual time, what an approval does when it is
 * due (`onDue`), and the escalations of a task, one timer per level counted from the due. A deadline that
 * cannot be computed does not stop the work: `process.sla_failed`, the work runs without a due and its
 * escalations are skipped.
 */
import type { SandboxCalendar } from './calendar.js';
import { deadline, pointOf, type Deadline, type DueContext } from './due.js';
import { ProcessError, setTimer, type Bindings, type Problem, type ProcessInstance, type SlaRecord, type TaskRecord, type TimerRecord } from './instance.js';
import { ScenarioFailure } from './result.js';
import { isRecord } from '../json/guards.js';
import { records } from './values.js';

/** The work a deadline is about, and what its timers act on. */
export interface DeadlineWork {
  /** The step id, or `process` for `spec.due`. */
  key: string;
  due: unknown;
  bindings: Bindings;
  /** Where the timers are kept, to go with the work. */
  owner?: TimerRecord[];
  /** Timers of a stage's work stop while the instance is suspended. */
  pausable: boolean;
  escalations?: readonly unknown[];
  /** `approve.onDue`: the approval decided by its deadline. */
  onDue?: unknown;
  decide?: (outcome: 'approved' | 'rejected') => void;
  task?: () => TaskRecord | undefined;
  /** Raises an escalation's error in the work's thread. */
  raise?: (problem: Problem) => void;
  /** What reassigns the task to the candidates of an escalation's `to`. */
  reassign?: (to: unknown) => void;
  /** The due moved (a suspension paused it): the task's due follows. */
  dueMoved?: (at: number) => void;
}

/** Starts the deadline of `work` now; gives its moment, or undefined when it could not be computed. */
export function startDeadline(instance: ProcessInstance, work: DeadlineWork): number | undefined {
  let computed: Deadline;
  try {
    computed = deadline(work.due, instance.now, dueContext(instance, work.bindings));
  } catch (error) {
    if (error instanceof ScenarioFailure) throw error;
    keep(instance, work.key, { key: work.key, state: 'unknown', open: true, provisional: false, pausable: work.pausable });
    instance.emit('sla_failed', work.key, { reason: (error as Error).message });
    return undefined;
  }
  const record: SlaRecord = { key: work.key, due: computed.at, state: 'ok', open: true, provisional: computed.provisional, pausable: work.pausable };
  if (computed.warnAt !== undefined) record.warnAt = computed.warnAt;
  keep(instance, work.key, record);
  const timer = (at: number, id: string, fire: () => void, moved?: (at: number) => void) => setTimer(instance, {
    id, element: work.key, at, provisional: computed.provisional, pausable: work.pausable, sla: true,
    fire: () => {
      if (record.open) fire();
    },
    ...(moved ? { moved } : {}),
  }, work.owner);
  if (computed.warnAt !== undefined) timer(computed.warnAt, `${work.key}.warning`, () => warn(instance, record), (at) => (record.warnAt = at));
  timer(computed.at, `${work.key}.due`, () => breach(instance, record, work), (at) => {
    record.due = at;
    work.dueMoved?.(at);
  });
  records(work.escalations).forEach((escalation, i) => {
    const at = escalationMoment(instance, escalation, computed.at, work.bindings);
    if (at !== undefined) timer(at, `${work.key}.escalation.${i + 1}`, () => escalate(instance, work, escalation, i));
  });
  return computed.at;
}

function keep(instance: ProcessInstance, key: string, record: SlaRecord): void {
  if (key === 'process') instance.processSla = record;
  else instance.sla.set(key, record);
}

/** When an escalation level fires: at the due, or its `after` counted from the due; undefined when it cannot be computed. */
function escalationMoment(instance: ProcessInstance, escalation: Readonly<Record<string, unknown>>, due: number, bindings: Bindings): number | undefined {
  if (escalation.after === 'due' || escalation.after === undefined) return due;
  try {
    return pointOf(escalation.after, due, { evaluate: (source) => instance.evaluate(source, bindings, 'escalations/after') });
  } catch {
    return undefined;
  }
}

function warn(instance: ProcessInstance, record: SlaRecord): void {
  if (record.state === 'ok') record.state = 'warning';
  instance.emit('sla_warning', record.key);
}

/** The deadline passed: the instance goes on; an approval may decide by it (`onDue: approve | reject`). */
function breach(instance: ProcessInstance, record: SlaRecord, work: DeadlineWork): void {
  record.state = 'breached';
  instance.emit('sla_breached', record.key, { overdueSeconds: Math.round((instance.now - (record.due ?? instance.now)) / 1000) });
  if ((work.onDue === 'approve' || work.onDue === 'reject') && work.decide !== undefined) {
    instance.coverage.handler(`${work.key}:onDue`);
    work.decide(work.onDue === 'approve' ? 'approved' : 'rejected');
  }
}

/** An escalation level: `reassign` gives the task to `to`, `raise` raises its error in the step's thread, the others only tell. */
function escalate(instance: ProcessInstance, work: DeadlineWork, escalation: Readonly<Record<string, unknown>>, index: number): void {
  const action = String(escalation.action);
  instance.coverage.handler(`${work.key}:escalations/${index}`);
  instance.emit('escalated', work.key, { level: index + 1, action, ...(escalation.to !== undefined ? { to: escalation.to } : {}) });
  if (action === 'reassign' && escalation.to !== undefined) work.reassign?.(escalation.to);
  if (action === 'raise') work.raise?.(isRecord(escalation.error) ? problemOf(instance, escalation.error, work.bindings) : { type: 'escalation' });
}

/** The problem an escalation's `error` describes. */
function problemOf(instance: ProcessInstance, error: Readonly<Record<string, unknown>>, bindings: Bindings): Problem {
  const problem: Problem = { type: typeof error.type === 'string' ? error.type : 'escalation' };
  if (typeof error.status === 'number') problem.status = error.status;
  if (typeof error.detail === 'string') {
    try {
      problem.detail = String(instance.evaluate(error.detail, bindings, 'escalations/error/detail'));
    } catch (failure) {
      if (!(failure instanceof ProcessError)) throw failure;
    }
  }
  return problem;
}

function dueContext(instance: ProcessInstance, bindings: Bindings): DueContext {
  return {
    evaluate: (source) => instance.evaluate(source, bindings, 'due'),
    calendar: (key) => calendarOf(instance, key),
    ...(instance.defaultCalendar !== undefined ? { defaultCalendar: instance.defaultCalendar } : {}),
  };
}

/** The calendar working units count by; a deadline in working units without one cannot be computed. */
function calendarOf(instance: ProcessInstance, key: string | undefined): SandboxCalendar {
  if (key === undefined) throw new Error('working units need a calendar: set spec.calendar of the process or calendar of the deadline');
  const calendar = instance.world.catalog.calendar(key);
  if (calendar === undefined) throw new Error(`no calendar '${key}'`);
  return calendar;
}
