// Working time by calendars of our own: holidays, weekends, short days, working hours, time zones.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createEnvironment, evaluate, workCalendar } from '../../src/cel/index.js';
import type { CalendarSpec } from '../../src/cel/index.js';

const load = (name: string) => (parse(readFileSync(resolve(import.meta.dirname, '../../fixtures/cel', name), 'utf8')) as { spec: CalendarSpec }).spec;
// Asia/Tokyo, 09:00–17:00; Monday 2026-11-02 a short day (an hour shorter), Tuesday 2026-11-03 a holiday.
const office = workCalendar(load('tokyo-office.calendar.yaml'), 'tokyo-office');
// America/Sao_Paulo, working days only; 2026-04-03 (a Friday) and 2026-11-02 (a Monday) are holidays.
const plant = workCalendar(load('assembly-plant.calendar.yaml'), 'assembly-plant');
const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('working days', () => {
  it('knows holidays and weekends', () => {
    expect(office.isWorkday(at('2026-11-03T10:00:00+09:00'))).toBe(false);
    expect(office.isWorkday(at('2026-11-07T10:00:00+09:00'))).toBe(false);
    expect(office.isWorkday(at('2026-11-04T10:00:00+09:00'))).toBe(true);
    // 15:30 UTC on the 2nd is already the 3rd in Tokyo.
    expect(office.isWorkday(at('2026-11-02T15:30:00Z'))).toBe(false);
  });

  it('adds working days at the same local time, both ways', () => {
    expect(iso(office.addWorkdays(at('2026-11-02T15:00:00+09:00'), 1))).toBe('2026-11-04T06:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-06T15:00:00+09:00'), 1))).toBe('2026-11-09T06:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-09T15:00:00+09:00'), -1))).toBe('2026-11-06T06:00:00.000Z');
    expect(iso(plant.addWorkdays(at('2026-04-02T13:00:00Z'), 1))).toBe('2026-04-06T13:00:00.000Z');
    expect(iso(office.addWorkdays(at('2026-11-04T03:00:00Z'), 0))).toBe('2026-11-04T03:00:00.000Z');
  });

  it('counts working days between two instants', () => {
    expect(office.workdaysBetween(at('2026-11-02T10:00:00+09:00'), at('2026-11-16T10:00:00+09:00'))).toBe(9);
    expect(office.workdaysBetween(at('2026-11-16T10:00:00+09:00'), at('2026-11-02T10:00:00+09:00'))).toBe(-9);
  });

  it('keeps the local time of day across a change of UTC offset', () => {
    const berlin = workCalendar({ timezone: 'Europe/Berlin', years: [] });
    // Clocks go forward on Sunday 2026-03-29: 09:00 is 08:00 UTC before, 07:00 UTC after.
    expect(iso(berlin.addWorkdays(at('2026-03-27T08:00:00Z'), 1))).toBe('2026-03-30T07:00:00.000Z');
  });
});

describe('working time', () => {
  it('adds working hours over evenings, weekends, short days and holidays', () => {
    // Friday 15:00–17:00, then the short Monday 09:00–15:00.
    expect(iso(office.addWorkingTime(at('2026-10-30T15:00:00+09:00'), 8 * 3_600_000))).toBe('2026-11-02T06:00:00.000Z');
    // Monday 14:00–16:00 (its end an hour early), no Tuesday, Wednesday 09:00–11:00.
    expect(iso(office.addWorkingTime(at('2026-11-02T14:00:00+09:00'), 4 * 3_600_000))).toBe('2026-11-04T02:00:00.000Z');
    expect(iso(office.addWorkingTime(at('2026-11-07T12:00:00+09:00'), 3_600_000))).toBe('2026-11-09T01:00:00.000Z');
  });

  it('subtracts working hours (a warning before a deadline)', () => {
    // Wednesday 09:00–10:00, no Tuesday, the short Monday back from 16:00.
    expect(iso(office.addWorkingTime(at('2026-11-04T10:00:00+09:00'), -2 * 3_600_000))).toBe('2026-11-02T06:00:00.000Z');
  });

  it('refuses working hours on a calendar of working days only', () => {
    expect(() => plant.addWorkingTime(at('2026-04-06T13:00:00Z'), 3_600_000)).toThrow(/assembly-plant.*no workingHours/);
  });

  it('serves cal.* during evaluation', () => {
    const env = createEnvironment({ kind: 'process', calendar: true, data: { type: 'object', properties: { due: { type: 'string', format: 'date-time' } } } });
    const calendars = (key: string) => (key === 'tokyo-office' ? office : key === 'assembly-plant' ? plant : undefined);
    const data = { due: '2026-10-30T15:00:00+09:00' };
    const run = (source: string) => evaluate(env, source, { data }, { calendars, defaultCalendar: 'tokyo-office' });
    expect(run("cal.addWorkingTime(data.due, duration('PT8H'))")).toBe('2026-11-02T06:00:00.000Z');
    expect(run("cal.workingTimeBetween(data.due, cal.addWorkingTime(data.due, duration('PT8H')))")).toBe('PT8H');
    // 03:00 on Friday in São Paulo; Monday is a holiday there.
    expect(run("cal.addWorkdays(data.due, 2, 'assembly-plant')")).toBe('2026-11-04T06:00:00.000Z');
    expect(run('cal.isWorkday(cal.addWorkdays(data.due, 2))')).toBe(true);
  });
});
