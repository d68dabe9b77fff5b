/**
 * Deadlines (`processDue`) and spans of the process language in virtual time: an ISO 8601 duration, `{at}` (CEL
 * giving a moment or a duration), or `{duration | workdays | workhours}` by a calendar with `warnBefore`; and
 * the `at` of timers, waits and escalations (`durationOrCel`).
 */
import { parseDuration } from '../cel/index.js';
import type { SandboxCalendar } from './calendar.js';
import { isRecord } from '../json/guards.js';

export interface Deadline {
  at: number;
  warnAt?: number;
  /** Computed over a calendar year that is provisional or not in the calendar. */
  provisional: boolean;
}

export interface DueContext {
  /** The value of a CEL expression (a moment as RFC 3339 text, a duration as ISO 8601, a number). */
  evaluate(source: string): unknown;
  calendar(key: string | undefined): SandboxCalendar;
  /** The calendar working units count by: the process's `spec.calendar` or the test's `given.calendar`. */
  defaultCalendar?: string;
}

/** The deadline `due` sets for work that starts at `from`. Throws with a sentence when it cannot be computed. */
export function deadline(due: unknown, from: number, ctx: DueContext): Deadline {
  if (typeof due === 'string' || (isRecord(due) && 'at' in due)) return { at: pointOf(due, from, ctx), provisional: false };
  if (!isRecord(due)) throw new Error(`'${JSON.stringify(due)}' is not a deadline`);
  const calendarKey = typeof due.calendar === 'string' ? due.calendar : ctx.defaultCalendar;
  let at: number;
  let calendar: SandboxCalendar | undefined;
  if (typeof due.duration === 'string') at = from + milliseconds(due.duration);
  else if (due.workdays !== undefined) {
    calendar = ctx.calendar(calendarKey);
    at = calendar.addWorkdays(new Date(from), amount(due.workdays, ctx, MAX_WORKDAYS)).getTime();
  } else if (due.workhours !== undefined) {
    calendar = ctx.calendar(calendarKey);
    at = calendar.addWorkingTime(new Date(from), amount(due.workhours, ctx, MAX_WORKHOURS) * 3_600_000).getTime();
  } else throw new Error('a deadline needs one of duration, workdays, workhours');
  const result: Deadline = { at, provisional: calendar?.provisionalBetween(new Date(from), new Date(at)) ?? false };
  if (due.warnBefore !== undefined) result.warnAt = before(due.warnBefore, at, () => ctx.calendar(calendarKey), ctx);
  return result;
}

/** The moment of a `durationOrCel` counted from `from`: a duration later, or the moment `{at}` names. */
export function pointOf(value: unknown, from: number, ctx: Pick<DueContext, 'evaluate'>): number {
  if (typeof value === 'string') return from + milliseconds(value);
  if (isRecord(value) && typeof value.at === 'string') {
    const result = ctx.evaluate(value.at);
    if (typeof result === 'string') {
      const moment = Date.parse(result);
      if (!Number.isNaN(moment) && /^\d{4}-/.test(result)) return moment;
      return from + milliseconds(result);
    }
    throw new Error(`'${value.at}' gave ${JSON.stringify(result)}, not a moment or a duration`);
  }
  throw new Error(`'${JSON.stringify(value)}' is neither a duration nor {at}`);
}

export function milliseconds(text: string): number {
  const parsed = parseDuration(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.milliseconds;
}

function before(span: unknown, at: number, calendar: () => SandboxCalendar, ctx: DueContext): number {
  if (typeof span === 'string') return at - milliseconds(span);
  if (isRecord(span) && span.workdays !== undefined) return calendar().addWorkdays(new Date(at), -amount(span.workdays, ctx, MAX_WORKDAYS)).getTime();
  if (isRecord(span) && span.workhours !== undefined) return calendar().addWorkingTime(new Date(at), -amount(span.workhours, ctx, MAX_WORKHOURS) * 3_600_000).getTime();
  throw new Error(`'${JSON.stringify(span)}' is not a span`);
}

/** A number of working units: a literal, or `{expr}` evaluated once when the work starts (a double with no fraction counts). */
function amount(value: unknown, ctx: DueContext, limit: number): number {
  const result = isRecord(value) && typeof value.expr === 'string' ? ctx.evaluate(value.expr) : value;
  if (typeof result !== 'number' || !Number.isInteger(result) || result < 0 || result > limit) {
    throw new Error(`a working amount must be a whole number from 0 to ${limit}, not ${JSON.stringify(result)}`);
  }
  return result;
}

/** The core's bounds of a working amount: days and hours. */
const MAX_WORKDAYS = 1000;
const MAX_WORKHOURS = 10_000;
