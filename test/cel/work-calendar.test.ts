// Working time by the calendars of the corpus: holidays, weekends, short days, working hours, time zones.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createEnvironment, evaluate, workCalendar } from '../../src/cel/index.js';
import type { CalendarSpec } from '../../src/cel/index.js';

const corpus = resolve(import.meta.dirname, '../../../shared/corpus');
const load = (file: string) => (parse(readFileSync(resolve(corpus, file), 'utf8')) as { spec: CalendarSpec }).spec;
// Europe/Moscow, 09:00–18:00, 2026-11-03 a short day (an hour shorter), 2026-11-04 a holiday.
const office = workCalendar(load('fixtures/sla/packages/sla-demo/calendars/office.yaml'), 'office');
// Europe/Moscow, working days only; 2026-01-01, 01-02 and 05-01 are holidays.
const ru = workCalendar(load('fixtures/process/ru.calendar.yaml'), 'ru');
const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('working days', () => {
  it('knows holidays and weekends', () => {
    expect(office.isWorkday(at('2026-11-04T10:00:00+03:00'))).toBe(false);
    expect(office.isWorkday(at('2026-11-07T10:00:00+03:00'))).toBe(false);
    expect(office.isWorkday(at('2026-11-05T10:00:00+03:00'))).toBe(true);
    // 23:30 UTC on the 3rd is already the 4th in Moscow.
    expect(office.isWorkday(at('2026-11-03T23:30:00Z'))).toBe(false);
  });

  it('adds working days at the same local time, both ways', () => {
    expect(iso(office.addWorkdays(at('2026-11-03T15:00:00+03:00'), 1))).toBe('2026-11-05T12:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-06T15:00:00+03:00'), 1))).toBe('2026-11-09T12:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-09T15:00:00+03:00'), -1))).toBe('2026-11-06T12:00:00.000Z');
    expect(iso(ru.addWorkdays(at('2025-12-31T10:00:00Z'), 1))).toBe('2026-01-05T10:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-05T12:00:00Z'), 0))).toBe('2026-11-05T12:00:00.000Z');
  });

  it('counts working days between two instants', () => {
    expect(office.workdaysBetween(at('2026-11-02T10:00:00+03:00'), at('2026-11-09T10:00:00+03:00'))).toBe(4);
    expect(office.workdaysBetween(at('2026-11-09T10:00:00+03:00'), at('2026-11-02T10:00:00+03:00'))).toBe(-4);
  });

  it('keeps the local time of day across a change of UTC offset', () => {
    const berlin = workCalendar({ timezone: 'Europe/Berlin', years: [] });
    // Clocks go forward on Sunday 2026-03-29: 09:00 is 08:00 UTC before, 07:00 UTC after.
    expect(iso(berlin.addWorkdays(at('2026-03-27T08:00:00Z'), 1))).toBe('2026-03-30T07:00:00.000Z');
  });
});

describe('working time', () => {
  it('adds working hours over evenings, short days and holidays', () => {
    expect(iso(office.addWorkingTime(at('2026-11-02T16:00:00+03:00'), 8 * 3_600_000))).toBe('2026-11-03T12:00:00.000Z');
    expect(iso(office.addWorkingTime(at('2026-11-03T14:00:00+03:00'), 4 * 3_600_000))).toBe('2026-11-05T07:00:00.000Z');
    expect(iso(office.addWorkingTime(at('2026-11-07T12:00:00+03:00'), 3_600_000))).toBe('2026-11-09T07:00:00.000Z');
  });

  it('subtracts working hours (a warning before a deadline)', () => {
    expect(iso(office.addWorkingTime(at('2026-11-05T10:00:00+03:00'), -2 * 3_600_000))).toBe('2026-11-03T13:00:00.000Z');
  });

  it('refuses working hours on a calendar of working days only', () => {
    expect(() => ru.addWorkingTime(at('2026-01-05T10:00:00Z'), 3_600_000)).toThrow(/ru.*no workingHours/);
  });

  it('serves cal.* during evaluation', () => {
    const env = createEnvironment({ kind: 'process', data: { type: 'object', properties: { due: { type: 'string', format: 'date-time' } } } });
    const calendars = (key: string) => (key === 'office' ? office : key === 'ru' ? ru : undefined);
    const data = { due: '2026-11-02T16:00:00+03:00' };
    const run = (source: string) => evaluate(env, source, { data }, { calendars, defaultCalendar: 'office' });
    expect(run("cal.addWorkingTime(data.due, duration('PT8H'))")).toBe('2026-11-03T12:00:00.000Z');
    expect(run('cal.addWorkingTime(data.due, 8)')).toBe('2026-11-03T12:00:00.000Z');
    expect(run("cal.addWorkdays(data.due, 2, 'ru')")).toBe('2026-11-04T13:00:00.000Z');
    expect(run('cal.isWorkday(cal.addWorkdays(data.due, 2))')).toBe(true);
  });
});
