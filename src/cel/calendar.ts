/**
 * Calendars behind `cal.*` of the `cp/1` profile. Expressions count working time by a business calendar:
 * `cal.addWorkdays(ts, n[, calendar])`, `cal.addWorkingTime(ts, duration[, calendar])`,
 * `cal.isWorkday(ts[, calendar])`, `cal.workdaysBetween(from, to[, calendar])`,
 * `cal.workingTimeBetween(from, to[, calendar])`. The forms without a calendar argument exist only in a process
 * with `spec.calendar`, which they count by.
 *
 * Whoever evaluates supplies the calendars as `WorkCalendar` objects (the package test engine runs virtual time);
 * `workCalendar(spec)` of `work-calendar.ts` makes one from a `Calendar` object. Type checking needs none.
 */

/** Working-time arithmetic of one calendar. Instants are `Date`s; counts are whole numbers. */
export interface WorkCalendar {
  /** The same local time of day `days` working days later (earlier when negative). */
  addWorkdays(at: Date, days: number): Date;
  /** The instant after `milliseconds` of working time (before it when negative). */
  addWorkingTime(at: Date, milliseconds: number): Date;
  isWorkday(at: Date): boolean;
  /** Working days after the day of `from` up to and including the day of `to`; negative when `to` is earlier. */
  workdaysBetween(from: Date, to: Date): number;
  /** Working time (milliseconds) between the instants, on the calendar's local wall clock; negative when `to` is earlier. */
  workingTimeBetween?(from: Date, to: Date): number;
}

/** Finds a calendar by its key (the `key` of a `Calendar` object). */
export type CalendarLookup = (key: string) => WorkCalendar | undefined;

/** The value of `cal` during evaluation: the calendars the caller supplied, and which one counts by default. */
export class CalendarNamespace {
  static readonly typeName: string = 'taimen.cal';

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

/** `cal` of a process without `spec.calendar`: every function needs the calendar key. */
export class KeyedCalendarNamespace extends CalendarNamespace {
  static override readonly typeName = 'taimen.calkeyed';
}
