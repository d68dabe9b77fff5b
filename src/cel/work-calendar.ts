/**
 * Working time by a `Calendar` object (`kind: Calendar`): the arithmetic behind `cal.*`, and behind deadlines
 * counted in `workdays` / `workhours`.
 *
 * A day is a working day when it is not a holiday of its year and either is a moved working day
 * (`years[].workdays`) or does not fall on the `weekend` (ISO weekdays, Saturday and Sunday by default). Working
 * hours are the `workingHours.intervals` of a working day (or its weekday's own intervals), in the calendar's
 * local time; a short day (`years[].shortDays`) ends `shortDayReduction` earlier. Days are local days of the
 * calendar's `timezone`, so "the same time of day" survives a change of UTC offset.
 */
import type { WorkCalendar } from './calendar.js';
import { parseDuration } from './duration.js';

export interface CalendarSpec {
  timezone: string;
  weekend?: number[];
  workingHours?: {
    intervals: { from: string; to: string }[];
    weekdays?: Record<string, { from: string; to: string }[]>;
    shortDayReduction?: string;
  };
  years?: { year: number; holidays?: string[]; workdays?: string[]; shortDays?: string[] }[];
}

const DAY_MS = 86_400_000;
/** How far working time is searched for: a calendar with no working hours at all would search forever. */
const SEARCH_DAYS = 3660;

/** A local calendar day, as days since 1970-01-01. */
type DayNumber = number;

export function workCalendar(spec: CalendarSpec, key = 'calendar'): WorkCalendar {
  return new SpecCalendar(spec, key);
}

class SpecCalendar implements WorkCalendar {
  private readonly weekend: ReadonlySet<number>;
  private readonly holidays = new Set<string>();
  private readonly movedWorkdays = new Set<string>();
  private readonly shortDays = new Set<string>();
  private readonly reduction: number;
  private readonly clock: LocalClock;

  constructor(private readonly spec: CalendarSpec, private readonly key: string) {
    this.weekend = new Set(spec.weekend ?? [6, 7]);
    for (const year of spec.years ?? []) {
      for (const date of year.holidays ?? []) this.holidays.add(date);
      for (const date of year.workdays ?? []) this.movedWorkdays.add(date);
      for (const date of year.shortDays ?? []) this.shortDays.add(date);
    }
    const reduction = spec.workingHours?.shortDayReduction === undefined ? undefined : parseDuration(spec.workingHours.shortDayReduction);
    this.reduction = reduction === undefined || 'error' in reduction ? 0 : reduction.milliseconds;
    this.clock = new LocalClock(spec.timezone);
  }

  isWorkday(at: Date): boolean {
    return this.isWorkingDay(this.clock.dayOf(at.getTime()));
  }

  addWorkdays(at: Date, days: number): Date {
    const time = at.getTime();
    const timeOfDay = this.clock.timeOfDay(time);
    let day = this.clock.dayOf(time);
    const step = Math.sign(days);
    for (let left = Math.abs(days); left > 0;) {
      day += step;
      if (this.isWorkingDay(day)) left--;
    }
    return new Date(this.clock.instant(day, timeOfDay));
  }

  workdaysBetween(from: Date, to: Date): number {
    const first = this.clock.dayOf(from.getTime());
    const last = this.clock.dayOf(to.getTime());
    const [low, high, sign] = first <= last ? [first, last, 1] : [last, first, -1];
    let count = 0;
    for (let day = low + 1; day <= high; day++) if (this.isWorkingDay(day)) count++;
    return sign * count;
  }

  addWorkingTime(at: Date, milliseconds: number): Date {
    if (this.spec.workingHours === undefined) {
      throw new Error(`calendar '${this.key}' has no workingHours — it counts working days only`);
    }
    const forward = milliseconds >= 0;
    let left = Math.abs(milliseconds);
    let t = at.getTime();
    let day = this.clock.dayOf(t);
    for (let searched = 0; searched < SEARCH_DAYS; searched++, day += forward ? 1 : -1) {
      const intervals = this.workingIntervals(day);
      for (const [start, end] of forward ? intervals : [...intervals].reverse()) {
        const from = forward ? Math.max(start, t) : start;
        const to = forward ? end : Math.min(end, t);
        if (to <= from) continue;
        if (left <= to - from) return new Date(forward ? from + left : to - left);
        left -= to - from;
      }
    }
    throw new Error(`calendar '${this.key}' has no working hours within ${SEARCH_DAYS} days`);
  }

  workingTimeBetween(from: Date, to: Date): number {
    if (this.spec.workingHours === undefined) {
      throw new Error(`calendar '${this.key}' has no workingHours — it counts working days only`);
    }
    const [low, high, sign] = from <= to ? [from.getTime(), to.getTime(), 1] : [to.getTime(), from.getTime(), -1];
    let total = 0;
    for (let day = this.clock.dayOf(low); day <= this.clock.dayOf(high); day++) {
      for (const [start, end] of this.workingIntervals(day)) total += Math.max(0, Math.min(end, high) - Math.max(start, low));
    }
    return sign * total;
  }

  private isWorkingDay(day: DayNumber): boolean {
    const date = isoDate(day);
    if (this.holidays.has(date)) return false;
    return this.movedWorkdays.has(date) || !this.weekend.has(isoWeekday(day));
  }

  /** The working intervals of a day as instants, in order; none on a day off. */
  private workingIntervals(day: DayNumber): [number, number][] {
    const hours = this.spec.workingHours;
    if (hours === undefined || !this.isWorkingDay(day)) return [];
    const ofWeekday = hours.weekdays?.[String(isoWeekday(day))];
    const intervals = (ofWeekday ?? hours.intervals).map(({ from, to }): [number, number] =>
      [this.clock.instant(day, clockTime(from)), this.clock.instant(day, clockTime(to))]);
    if (this.shortDays.has(isoDate(day)) && intervals.length > 0) {
      const last = intervals[intervals.length - 1];
      last[1] = Math.max(last[0], last[1] - this.reduction);
    }
    return intervals;
  }
}

/** `09:30` → milliseconds since midnight (`24:00` is the end of the day). */
function clockTime(text: string): number {
  const [hours, minutes = '0'] = text.split(':');
  return (Number(hours) * 60 + Number(minutes)) * 60_000;
}

function isoDate(day: DayNumber): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** 1 is Monday, 7 is Sunday. */
function isoWeekday(day: DayNumber): number {
  return ((new Date(day * DAY_MS).getUTCDay() + 6) % 7) + 1;
}

/** Local days and times of one time zone. */
class LocalClock {
  private readonly format: Intl.DateTimeFormat;

  constructor(timeZone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  }

  /** The instant as if the local wall clock were UTC. */
  private wallClock(time: number): number {
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(time)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) + (((time % 1000) + 1000) % 1000);
  }

  dayOf(time: number): DayNumber {
    return Math.floor(this.wallClock(time) / DAY_MS);
  }

  timeOfDay(time: number): number {
    const wall = this.wallClock(time);
    return wall - Math.floor(wall / DAY_MS) * DAY_MS;
  }

  /** The instant at which the local clock shows `timeOfDay` on `day` (a time skipped by a clock change moves on). */
  instant(day: DayNumber, timeOfDay: number): number {
    const wall = day * DAY_MS + timeOfDay;
    const first = wall - (this.wallClock(wall) - wall);
    const offset = this.wallClock(first) - first;
    return wall - offset;
  }
}
