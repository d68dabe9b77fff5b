/**
 * `cal.*` of the `taimen/1` profile. Expressions count working time by a business calendar:
 * `cal.addWorkdays(ts, n[, calendar])`, `cal.addWorkingTime(ts, duration | hours[, calendar])`,
 * `cal.isWorkday(ts[, calendar])`, `cal.workdaysBetween(from, to[, calendar])`. Without a calendar argument the
 * process's `spec.calendar` counts.
 *
 * The arithmetic belongs to whoever evaluates (the package test engine runs virtual time): `evaluate` receives
 * the calendars as `WorkCalendar` objects. Type checking needs none.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { Duration } from '@marcbachmann/cel-js/evaluator';
import { SYNC } from './environment.js';

/** Working-time arithmetic of one calendar. Instants are `Date`s; counts are whole numbers. */
export interface WorkCalendar {
  /** The same local time of day `days` working days later (earlier when negative). */
  addWorkdays(at: Date, days: number): Date;
  /** The instant after `milliseconds` of working time (before it when negative). */
  addWorkingTime(at: Date, milliseconds: number): Date;
  isWorkday(at: Date): boolean;
  /** Working days after the day of `from` up to and including the day of `to`; negative when `to` is earlier. */
  workdaysBetween(from: Date, to: Date): number;
}

/** Finds a calendar by its key (the `key` of a `Calendar` object). */
export type CalendarLookup = (key: string) => WorkCalendar | undefined;

/** The value of `cal` during evaluation: the calendars the caller supplied, and which one counts by default. */
export class CalendarNamespace {
  static readonly typeName = 'taimen.cal';

  constructor(
    private readonly calendars: CalendarLookup = () => undefined,
    private readonly defaultKey?: string,
  ) {}

  calendar(key: string | undefined = this.defaultKey): WorkCalendar {
    if (key === undefined) throw new Error('no calendar: pass one to cal.* or set spec.calendar of the process');
    const calendar = this.calendars(key);
    if (calendar === undefined) throw new Error(`no calendar '${key}'`);
    return calendar;
  }
}

const MS_PER_HOUR = 3_600_000;

export function registerCalendarFunctions(env: Environment): void {
  const NS = CalendarNamespace.typeName;
  const T = 'google.protobuf.Timestamp';
  const D = 'google.protobuf.Duration';
  env.registerType(NS, CalendarNamespace);
  // Each function takes an optional trailing calendar key; CEL has no optional parameters, so two overloads.
  for (const [key, tail] of [[false, ''], [true, ', string']] as const) {
    const pick = (ns: CalendarNamespace, args: unknown[]) => ns.calendar(key ? (args.at(-1) as string) : undefined);
    env.registerFunction(`${NS}.addWorkdays(${T}, int${tail}): ${T}`, (ns: CalendarNamespace, at: Date, days: bigint, ...rest: unknown[]) =>
      pick(ns, rest).addWorkdays(at, Number(days)), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, ${D}${tail}): ${T}`, (ns: CalendarNamespace, at: Date, span: Duration, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, span.valueOf()), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, int${tail}): ${T}`, (ns: CalendarNamespace, at: Date, hours: bigint, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, Number(hours) * MS_PER_HOUR), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, double${tail}): ${T}`, (ns: CalendarNamespace, at: Date, hours: number, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, hours * MS_PER_HOUR), SYNC);
    env.registerFunction(`${NS}.isWorkday(${T}${tail}): bool`, (ns: CalendarNamespace, at: Date, ...rest: unknown[]) =>
      pick(ns, rest).isWorkday(at), SYNC);
    env.registerFunction(`${NS}.workdaysBetween(${T}, ${T}${tail}): int`, (ns: CalendarNamespace, from: Date, to: Date, ...rest: unknown[]) =>
      BigInt(pick(ns, rest).workdaysBetween(from, to)), SYNC);
  }
}
