// Evaluation for the package test engine: JSON bindings in, JSON out, runtime errors as expression_error.
import { describe, expect, it } from 'vitest';
import { CelEvaluationError, checkExpression, createEnvironment, evaluate, formatDuration, parseDuration } from '../../src/cel/index.js';
import type { WorkCalendar } from '../../src/cel/index.js';

const env = createEnvironment({
  kind: 'process',
  data: {
    type: 'object',
    properties: {
      amount: { type: 'number' },
      count: { type: 'integer' },
      decision: { type: 'string' },
      due: { type: 'string', format: 'date-time' },
      lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
    },
  },
  settings: { type: 'object', properties: { threshold: { type: 'integer' } } },
  stages: ['intake'],
  calendar: true,
});

/** Monday to Friday are working days; working time is the whole working day. Test input, not a package calendar. */
const weekdays: WorkCalendar = {
  isWorkday: (at) => at.getUTCDay() !== 0 && at.getUTCDay() !== 6,
  addWorkdays(at, days) {
    const next = new Date(at);
    for (let left = Math.abs(days); left > 0;) {
      next.setUTCDate(next.getUTCDate() + Math.sign(days));
      if (this.isWorkday(next)) left--;
    }
    return next;
  },
  addWorkingTime: (at, ms) => new Date(at.getTime() + ms),
  workdaysBetween(from, to) {
    let n = 0;
    for (const d = new Date(from); d < to;) {
      d.setUTCDate(d.getUTCDate() + 1);
      if (d <= to && this.isWorkday(d)) n++;
    }
    return n;
  },
};

const run = (source: string, bindings: Record<string, unknown>) =>
  evaluate(env, source, bindings, { calendars: (key) => (key === 'weekdays' ? weekdays : undefined), defaultCalendar: 'weekdays' });

describe('evaluate', () => {
  it('computes with integers, doubles and strings typed by the data schema', () => {
    expect(run('data.count * 2 + settings.threshold', { data: { count: 21 }, settings: { threshold: 8 } })).toBe(50);
    expect(run('data.amount > 100.0', { data: { amount: 250 } })).toBe(true);
    expect(run("'claim:' + string(data.count)", { data: { count: 7 } })).toBe('claim:7');
  });

  it('reads lists of objects and maps results back to JSON', () => {
    const data = { lines: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 5 }] };
    expect(run('data.lines.filter(l, l.qty > 2).map(l, l.sku)', { data })).toEqual(['b']);
    expect(run("{'total': data.lines.map(l, l.qty)[1], 'first': data.lines[0].sku}", { data })).toEqual({ total: 5, first: 'a' });
  });

  it('handles timestamps and ISO 8601 durations', () => {
    expect(run("data.due + duration('P1DT2H')", { data: { due: '2026-03-02T09:00:00Z' } })).toBe('2026-03-03T11:00:00.000Z');
    expect(run("duration('PT90M') + duration('1h')", {})).toBe('PT2H30M');
    expect(run('event.time < data.due', { data: { due: '2026-03-02T09:00:00Z' }, event: { time: '2026-03-01T00:00:00Z' } })).toBe(true);
  });

  it('counts working days with the calendar the caller supplies', () => {
    const friday = '2026-03-06T10:00:00Z';
    expect(run('cal.addWorkdays(data.due, 1)', { data: { due: friday } })).toBe('2026-03-09T10:00:00.000Z');
    expect(run("cal.isWorkday(data.due, 'weekdays')", { data: { due: friday } })).toBe(true);
    expect(run('cal.workdaysBetween(data.due, data.due + duration("P7D"))', { data: { due: friday } })).toBe(5);
    expect(() => run("cal.isWorkday(data.due, 'ru')", { data: { due: friday } })).toThrow(/no calendar 'ru'/);
  });

  it('gives optionals and guards their value', () => {
    expect(run("data.?decision.orValue('none')", { data: {} })).toBe('none');
    expect(run('has(data.decision)', { data: { decision: 'go' } })).toBe(true);
    expect(run("stage.intake.completed", { stage: { intake: { completed: true, active: false } } })).toBe(true);
  });

  it('reports an unset field read without a guard as expression_error with a hint', () => {
    try {
      run("data.decision == 'go'", { data: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CelEvaluationError);
      expect((error as CelEvaluationError).code).toBe('expression_error');
      expect((error as CelEvaluationError).hint).toMatch(/has\(/);
    }
  });

  it('refuses an expression that does not check, with the check finding code', () => {
    expect(() => run('data.decison', { data: {} })).toThrow(expect.objectContaining({ code: 'expression_type_error' }));
    expect(() => run('now()', {})).toThrow(expect.objectContaining({ code: 'expression_type_error' }));
  });

  it('matches with RE2: (?i) flags and POSIX classes work', () => {
    expect(run("data.decision.matches('(?i)^GO$') && matches(data.decision, '^[[:alpha:]]+$')", { data: { decision: 'go' } })).toBe(true);
    expect(run("data.decision.matches('^g')", { data: { decision: 'stop' } })).toBe(false);
  });

  it('gives the core functions: decimal, the list members, optMap, duration + timestamp', () => {
    expect(run("decimal(' 1500000.50 ') + decimal(data.count)", { data: { count: 2 } })).toBe(1500002.5);
    expect(() => run("decimal('1,5')", {})).toThrow(expect.objectContaining({ code: 'expression_error' }));
    expect(run('[3, 1, 2, 1].distinct().sort().slice(0, 2)', {})).toEqual([1, 2]);
    expect(run('[[1], [2, 3]].flatten()', {})).toEqual([1, 2, 3]);
    expect(run("data.?decision.optMap(d, d + '!').orValue('none')", { data: { decision: 'go' } })).toBe('go!');
    expect(run("duration('P1D') + data.due", { data: { due: '2026-03-02T09:00:00Z' } })).toBe('2026-03-03T09:00:00.000Z');
    expect(run('string(data.due)', { data: { due: '2026-03-02T09:00:00Z' } })).toBe('2026-03-02T09:00:00Z');
  });

  it('evaluates an expression checked before, with the rewrites the check makes (ISO durations, RE2), and keeps the result', () => {
    const source = "duration('PT2H') + data.due > data.due && data.decision.matches('(?i)^go$')";
    const checked = checkExpression(env, source);
    expect(checked.diagnostics).toEqual([]);
    expect(run(source, { data: { due: '2026-03-02T09:00:00Z', decision: 'GO' } })).toBe(true);
    expect(checkExpression(env, source)).toBe(checked);
  });

  it('substitutes installation variables as the check does', () => {
    const result = evaluate(env, 'data.amount > double(${LIMIT})', { data: { amount: 600 } }, { variables: { LIMIT: { value: '500' } } });
    expect(result).toBe(true);
  });
});

describe('durations', () => {
  it.each([
    ['P3D', 3 * 86_400_000], ['PT4H', 4 * 3_600_000], ['P1W', 7 * 86_400_000], ['-PT30M', -1_800_000],
    ['PT0.5S', 500], ['1h30m', 5_400_000], ['0', 0],
  ])('%s', (text, ms) => expect(parseDuration(text)).toEqual({ milliseconds: ms }));

  it.each(['P1M', 'P1Y', 'P', 'PT', 'P3', '3 days', ''])('rejects %s', (text) => expect(parseDuration(text)).toHaveProperty('error'));

  it('formats back to ISO 8601', () => {
    expect(formatDuration(93_784_000)).toBe('P1DT2H3M4S');
    expect(formatDuration(0)).toBe('PT0S');
    expect(formatDuration(-3_600_000)).toBe('-PT1H');
  });
});
