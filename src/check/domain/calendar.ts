/**
 * A business calendar as the core builds it (`Calendar.from_spec`, compat-core-validators.md §11): an IANA
 * time zone, one entry per year whose holidays, moved working days and short days fall in that year, no day
 * both a holiday and a working day, and working hours of ordered intervals.
 */
import { isRecord } from '../../json/guards.js';
import { at, Problems, type DomainProblem } from './problems.js';

const DAY_LISTS = ['holidays', 'workdays', 'shortDays'] as const;
const TIME = /^([0-9]{2}):([0-9]{2})$/;
/** ISO 8601 durations of weeks, days, hours, minutes and seconds (no years, no months). */
const DURATION = /^P(?!$)(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?=[0-9])(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?$/;

/** Every problem of a calendar's spec. */
export function calendarProblems(spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_working_hours');
  if (typeof spec.timezone === 'string' && !isTimeZone(spec.timezone)) {
    problems.add('/spec/timezone', `'${spec.timezone}' is not a time zone of the IANA database`, { code: 'unknown_timezone', hint: 'e.g. Europe/Moscow, America/New_York, UTC' });
  }
  years(spec.years, problems);
  if (isRecord(spec.workingHours)) workingHours(spec.workingHours, '/spec/workingHours', problems);
  return problems.list;
}

/** Known to the IANA database, written as it names it (the core's lookup is case-sensitive). */
function isTimeZone(name: string): boolean {
  if (!name.split('/').every((segment) => /^[A-Z]/.test(segment))) return false;
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
  } catch {
    return false;
  }
}

function years(list: unknown, problems: Problems): void {
  if (!Array.isArray(list)) return;
  const seen = new Set<number>();
  list.forEach((entry, index) => {
    if (!isRecord(entry) || typeof entry.year !== 'number') return;
    const here = at('/spec/years', index);
    if (seen.has(entry.year)) problems.add(here, `year ${entry.year} is listed twice`, { code: 'duplicate_calendar_year', hint: 'one entry per year' });
    seen.add(entry.year);
    for (const name of DAY_LISTS) {
      const days = entry[name];
      if (!Array.isArray(days)) continue;
      days.forEach((day, j) => {
        if (typeof day === 'string' && /^[0-9]{4}-/.test(day) && Number(day.slice(0, 4)) !== entry.year) {
          problems.add(at(here, name, j), `${day} is outside the year ${entry.year}`, { code: 'calendar_date_outside_year' });
        }
      });
    }
    const holidays = new Set(Array.isArray(entry.holidays) ? entry.holidays : []);
    const conflicts = (Array.isArray(entry.workdays) ? entry.workdays : []).filter((day) => holidays.has(day)).sort();
    if (conflicts.length > 0) {
      problems.add(here, `${String(conflicts[0])} is both a holiday and a moved working day`, { code: 'calendar_day_conflict' });
    }
  });
}

function workingHours(hours: Record<string, unknown>, pointer: string, problems: Problems): void {
  intervals(hours.intervals, at(pointer, 'intervals'), false, problems);
  if (isRecord(hours.weekdays)) {
    for (const [day, list] of Object.entries(hours.weekdays)) {
      if (!/^[1-7]$/.test(day)) problems.add(at(pointer, 'weekdays', day), `weekday '${day}' is not an ISO weekday 1..7`, { atKey: true });
      intervals(list, at(pointer, 'weekdays', day), true, problems);
    }
  }
  const reduction = hours.shortDayReduction;
  if (typeof reduction === 'string' && !wholeMinutes(reduction)) {
    problems.add(at(pointer, 'shortDayReduction'), `shortDayReduction '${reduction}' must be an ISO duration of weeks, days, hours, minutes and seconds in whole minutes`);
  }
}

function intervals(list: unknown, pointer: string, mayBeEmpty: boolean, problems: Problems): void {
  if (!Array.isArray(list)) return;
  if (list.length === 0 && !mayBeEmpty) problems.add(pointer, 'A working day needs an interval');
  let end = -1;
  list.forEach((interval, index) => {
    if (!isRecord(interval)) return;
    const here = at(pointer, index);
    const from = minutes(interval.from);
    const to = minutes(interval.to);
    if (from === undefined || from >= 24 * 60) problems.add(at(here, 'from'), 'from must be a time HH:MM before 24:00');
    if (to === undefined) problems.add(at(here, 'to'), 'to must be a time HH:MM, 24:00 at the latest');
    if (from === undefined || to === undefined || from >= 24 * 60) return;
    if (to <= from) problems.add(here, `the interval ${String(interval.from)}–${String(interval.to)} must end after it starts`);
    else if (from < end) problems.add(here, 'intervals go in order without overlapping');
    end = Math.max(end, to);
  });
}

/** `HH:MM` as minutes since midnight (24:00 included), or undefined. */
function minutes(value: unknown): number | undefined {
  const match = typeof value === 'string' ? TIME.exec(value) : null;
  if (!match) return undefined;
  const total = Number(match[1]) * 60 + Number(match[2]);
  return Number(match[2]) < 60 && total <= 24 * 60 ? total : undefined;
}

function wholeMinutes(duration: string): boolean {
  const match = DURATION.exec(duration);
  return match !== null && !duration.endsWith('T') && Number(match[5] ?? 0) % 60 === 0;
}
