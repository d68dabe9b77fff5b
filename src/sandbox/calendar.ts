/**
 * Working time of a `Calendar` object, for `cal.*` and for due dates of the package test engine: working days
 * (weekend, holidays, moved working days) and working hours (intervals, per-weekday intervals, short days) in
 * the calendar's own time zone.
 */
import type { WorkCalendar } from '../cel/index.js';
import { parseDuration } from '../cel/index.js';
import { isRecord } from '../json/guards.js';

const DAY_MS = 86_400_000;
/** How far a count of working time may look for working days before it gives up (an all-holiday calendar). */
const SEARCH_DAYS = 3660;

interface LocalDate {
  year: number;
  month: number;
  day: number;
}

interface Interval {
  /** Minutes since local midnight. */
  from: number;
  to: number;
}

interface YearRules {
  provisional: boolean;
  holidays: Set<string>;
  workdays: Set<string>;
  shortDays: Set<string>;
}

export class SandboxCalendar implements WorkCalendar {
  private readonly timezone: string;
  private readonly weekend: Set<number>;
  private readonly years = new Map<number, YearRules>();
  private readonly intervals?: Interval[];
  private readonly weekdayIntervals = new Map<number, Interval[]>();
  private readonly shortDayReduction: number;
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly key: string, spec: Record<string, unknown>) {
    this.timezone = typeof spec.timezone === 'string' ? spec.timezone : 'UTC';
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: this.timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    this.weekend = new Set(Array.isArray(spec.weekend) ? spec.weekend.filter((d): d is number => typeof d === 'number') : [6, 7]);
    for (const year of Array.isArray(spec.years) ? spec.years.filter(isRecord) : []) {
      if (typeof year.year !== 'number') continue;
      const dates = (name: string) => new Set(Array.isArray(year[name]) ? (year[name] as unknown[]).map(String) : []);
      this.years.set(year.year, { provisional: year.provisional === true, holidays: dates('holidays'), workdays: dates('workdays'), shortDays: dates('shortDays') });
    }
    const hours = isRecord(spec.workingHours) ? spec.workingHours : undefined;
    if (hours !== undefined) {
      this.intervals = parseIntervals(hours.intervals);
      if (isRecord(hours.weekdays)) for (const [day, list] of Object.entries(hours.weekdays)) this.weekdayIntervals.set(Number(day), parseIntervals(list));
    }
    const reduction = typeof hours?.shortDayReduction === 'string' ? parseDuration(hours.shortDayReduction) : undefined;
    this.shortDayReduction = reduction !== undefined && 'milliseconds' in reduction ? reduction.milliseconds / 60_000 : 60;
  }

  /** Whether a computation between these instants used a year the calendar does not confirm (provisional or absent). */
  provisionalBetween(a: Date, b: Date): boolean {
    const [from, to] = [this.local(a).year, this.local(b).year].sort((x, y) => x - y);
    for (let year = from!; year <= to!; year++) if (this.years.get(year)?.provisional !== false) return true;
    return false;
  }

  isWorkday(at: Date): boolean {
    return this.isWorkingDate(this.local(at));
  }

  addWorkdays(at: Date, days: number): Date {
    const minutes = this.minutesOfDay(at);
    let date: LocalDate = this.local(at);
    let left = Math.abs(Math.trunc(days));
    const step = days < 0 ? -1 : 1;
    for (let guard = 0; left > 0; guard++) {
      if (guard > SEARCH_DAYS) throw new Error(`calendar '${this.key}' has no working day within ${SEARCH_DAYS} days`);
      date = shiftDate(date, step);
      if (this.isWorkingDate(date)) left--;
    }
    return this.instant(date, minutes);
  }

  workdaysBetween(from: Date, to: Date): number {
    const sign = to.getTime() < from.getTime() ? -1 : 1;
    let [date, end]: LocalDate[] = sign > 0 ? [this.local(from), this.local(to)] : [this.local(to), this.local(from)];
    let count = 0;
    while (dateKey(date!) < dateKey(end!)) {
      date = shiftDate(date!, 1);
      if (this.isWorkingDate(date)) count++;
    }
    return sign * count;
  }

  addWorkingTime(at: Date, milliseconds: number): Date {
    if (this.intervals === undefined) throw new Error(`calendar '${this.key}' has no workingHours: it counts working days only`);
    return milliseconds >= 0 ? this.forward(at, milliseconds / 60_000) : this.backward(at, -milliseconds / 60_000);
  }

  private forward(at: Date, minutes: number): Date {
    let date: LocalDate = this.local(at);
    let now = this.minutesOfDay(at);
    let left = minutes;
    for (let guard = 0; guard <= SEARCH_DAYS; guard++) {
      for (const interval of this.workingIntervals(date)) {
        if (interval.to <= now) continue;
        const from = Math.max(interval.from, now);
        if (from + left <= interval.to) return this.instant(date, from + left);
        left -= interval.to - from;
        now = interval.to;
      }
      date = shiftDate(date, 1);
      now = 0;
    }
    throw new Error(`calendar '${this.key}' has no working hours within ${SEARCH_DAYS} days`);
  }

  private backward(at: Date, minutes: number): Date {
    let date: LocalDate = this.local(at);
    let now = this.minutesOfDay(at);
    let left = minutes;
    for (let guard = 0; guard <= SEARCH_DAYS; guard++) {
      for (const interval of [...this.workingIntervals(date)].reverse()) {
        if (interval.from >= now) continue;
        const to = Math.min(interval.to, now);
        if (to - left >= interval.from) return this.instant(date, to - left);
        left -= to - interval.from;
        now = interval.from;
      }
      date = shiftDate(date, -1);
      now = 24 * 60;
    }
    throw new Error(`calendar '${this.key}' has no working hours within ${SEARCH_DAYS} days`);
  }

  private workingIntervals(date: LocalDate): Interval[] {
    if (!this.isWorkingDate(date)) return [];
    const base = this.weekdayIntervals.get(isoWeekday(date)) ?? this.intervals ?? [];
    if (!this.years.get(date.year)?.shortDays.has(dateKey(date)) || base.length === 0) return base;
    const last = base[base.length - 1]!;
    return [...base.slice(0, -1), { from: last.from, to: Math.max(last.from, last.to - this.shortDayReduction) }];
  }

  private isWorkingDate(date: LocalDate): boolean {
    const rules = this.years.get(date.year);
    const key = dateKey(date);
    if (rules?.holidays.has(key)) return false;
    if (rules?.workdays.has(key)) return true;
    return !this.weekend.has(isoWeekday(date));
  }

  private local(at: Date): LocalDate & { minutes: number } {
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    return { year: parts.year!, month: parts.month!, day: parts.day!, minutes: parts.hour! * 60 + parts.minute! + parts.second! / 60 };
  }

  private minutesOfDay(at: Date): number {
    return this.local(at).minutes;
  }

  /** The instant of a local date and time of day in the calendar's zone. */
  private instant(date: LocalDate, minutes: number): Date {
    const wall = Date.UTC(date.year, date.month - 1, date.day) + minutes * 60_000;
    let guess = wall;
    for (let i = 0; i < 3; i++) guess = wall - this.offset(new Date(guess));
    return new Date(Math.round(guess));
  }

  /** Milliseconds the zone's wall clock is ahead of UTC at an instant. */
  private offset(at: Date): number {
    const local = this.local(at);
    const wall = Date.UTC(local.year, local.month - 1, local.day) + local.minutes * 60_000;
    return wall - Math.floor(at.getTime() / 1000) * 1000;
  }
}

function parseIntervals(value: unknown): Interval[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((item) => ({ from: clockMinutes(item.from), to: clockMinutes(item.to) }));
}

function clockMinutes(value: unknown): number {
  const match = /^(\d{1,2}):(\d{2})$/.exec(String(value));
  return match === null ? 0 : Number(match[1]) * 60 + Number(match[2]);
}

function dateKey(date: LocalDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

function shiftDate(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * DAY_MS);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** 1 is Monday, 7 is Sunday. */
function isoWeekday(date: LocalDate): number {
  const day = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return day === 0 ? 7 : day;
}
