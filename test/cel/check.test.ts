// Each code of the taimen/1 profile: cases that must raise it, near-misses that must not.
import { describe, expect, it } from 'vitest';
import { CEL_CODES, checkExpression, createEnvironment, LIMITS } from '../../src/cel/index.js';
import { PROCESS_ERROR_SCHEMA } from '../../src/process/index.js';
import type { CelCode, CelTypeName, CheckOptions, JsonSchema, Profile } from '../../src/cel/index.js';

const DATA: JsonSchema = {
  type: 'object',
  required: ['amount'],
  properties: {
    amount: { type: 'number' },
    count: { type: 'integer' },
    decision: { type: 'string', enum: ['go', 'no-go'] },
    tags: { type: 'array', items: { type: 'string' } },
    due: { type: 'string', format: 'date-time' },
    purchase: {
      type: 'object',
      properties: { number: { type: 'string' }, customer: { type: 'object', properties: { inn: { type: 'string' } } } },
    },
    meta: { type: 'object' },
    lines: { type: 'array', items: { $ref: '#/$defs/line' } },
  },
  $defs: { line: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
};

const SETTINGS: JsonSchema = {
  type: 'object',
  properties: {
    refundThreshold: { type: 'integer' },
    escalate: { type: 'boolean' },
    channel: { type: 'string', enum: ['email', 'chat'] },
    tags: { type: 'array', items: { type: 'string' } },
    intake: { type: 'object', properties: { mailbox: { type: 'string' } } },
  },
};

const PROCESS: Profile = { kind: 'process', data: DATA, settings: SETTINGS, stages: ['intake', 'go-no-go'], milestones: ['triaged'] };
const process = createEnvironment(PROCESS);
const noSettings = createEnvironment({ ...PROCESS, settings: undefined });
const catchAsSettings = createEnvironment({ ...PROCESS, extraVariables: { settings: PROCESS_ERROR_SCHEMA } });
const view = createEnvironment({ kind: 'view', data: DATA, settings: SETTINGS, params: { id: { type: 'string' } } });
const metrics = createEnvironment({ kind: 'view', data: DATA, settings: SETTINGS, aggregates: true });

interface Case {
  source: string;
  env?: typeof process;
  expected?: CelTypeName | CelTypeName[];
  variables?: CheckOptions['variables'];
}
interface Invalid extends Case {
  code: CelCode;
  /** The underlined text (the slice of `source` at offset/length). */
  at?: string;
  hint?: string;
  message?: string;
}

function codesOf(c: Case) {
  return checkExpression(c.env ?? process, c.source, { expected: c.expected, variables: c.variables }).diagnostics;
}

const tabled = new Set<string>();

function table(name: CelCode, t: { valid: Case[]; invalid: Invalid[] }) {
  tabled.add(name);
  describe(name, () => {
    it('has cases that raise the code and near-misses that do not', () => {
      expect(t.invalid.some((c) => c.code === name)).toBe(true);
      expect(t.valid.length).toBeGreaterThan(0);
    });
    it.each(t.valid)('valid: $source', (c) => expect(codesOf(c)).toEqual([]));
    it.each(t.invalid)('invalid: $source', (c) => {
      const diagnostics = codesOf(c);
      expect(diagnostics.map((d) => d.code)).toEqual([c.code]);
      const [d] = diagnostics;
      if (c.at !== undefined) expect(c.source.slice(d.offset, d.offset + d.length)).toBe(c.at);
      if (c.hint !== undefined) expect(d.hint).toBe(c.hint);
      if (c.message !== undefined) expect(d.message).toBe(c.message);
      expect(d.message.length).toBeGreaterThan(10);
    });
  });
}

table('expression_syntax_error', {
  valid: [{ source: 'data.amount > 1.0' }, { source: "data.decision == 'go' ? 'yes' : 'no'" }],
  invalid: [
    { source: 'data.amount >', code: 'expression_syntax_error' },
    { source: "data.decision == 'go", code: 'expression_syntax_error' },
    { source: 'data.amount >> 1', code: 'expression_syntax_error', at: '>' },
    { source: '(data.amount', code: 'expression_syntax_error', message: "expected ')', found the end of the expression" },
  ],
});

const nots = (n: number) => `${'!'.repeat(n)}true`;
table('expression_too_complex', {
  valid: [
    { source: `'${'a'.repeat(LIMITS.length - 2)}'` },
    { source: nots(LIMITS.depth - 1) },
    { source: 'data.tags.all(a, data.tags.all(b, data.tags.all(c, a == b && b == c)))' },
  ],
  invalid: [
    { source: `'${'a'.repeat(LIMITS.length - 1)}'`, code: 'expression_too_complex' },
    { source: nots(LIMITS.depth), code: 'expression_too_complex' },
    {
      source: 'data.tags.all(a, data.tags.all(b, data.tags.all(c, data.tags.all(d, a == d))))',
      code: 'expression_too_complex',
      at: 'data.tags.all(d, a == d)',
    },
    { source: 'cel.bind(x, data.tags, x.all(a, x.all(b, x.all(c, a == c))))', code: 'expression_too_complex' },
  ],
});

table('now_not_allowed', {
  valid: [
    { source: 'instance.clock > data.due', expected: 'bool' },
    { source: "'now()' == data.decision" },
    { source: 'data.tags.exists(now, now == "x")' },
  ],
  invalid: [
    { source: 'now() > data.due', code: 'now_not_allowed', at: 'now()', hint: 'use event.time or instance.clock' },
    { source: 'data.due < now', code: 'now_not_allowed', at: 'now' },
  ],
});

table('unknown_data_field', {
  valid: [
    { source: 'has(data.count)', expected: 'bool' },
    { source: 'data.?count.orValue(1)', expected: 'int' },
    { source: 'data.?amount.orValue(0.0) > 10.0' },
    { source: 'data.meta.anything', expected: 'bool' },
    { source: "data['amount'] > 1.0" },
    { source: 'data.purchase.customer.inn' },
    { source: 'data.lines.exists(l, l.qty > 2)' },
    { source: 'data.tags.exists(data, data == "x")' },
    { source: "[1, 2].map(x, x * 2).size() > 0 && data.amount > 0.0" },
  ],
  invalid: [
    { source: 'data.amout > 1.0', code: 'unknown_data_field', at: 'amout', hint: "did you mean 'amount'?" },
    // has() and .? guard a declared field that may be unset — a misspelt one is still a finding.
    { source: 'has(data.amout)', code: 'unknown_data_field', at: 'amout', hint: "did you mean 'amount'?" },
    { source: 'data.?amout.orValue(1.0) > 2.0', code: 'unknown_data_field', at: 'amout' },
    { source: 'data.purchase.customer.inm', code: 'unknown_data_field', at: 'inm', hint: "did you mean 'inn'?" },
    { source: "data['amout']", code: 'unknown_data_field', at: "'amout'" },
    { source: 'data.reviewer', code: 'unknown_data_field', at: 'reviewer', hint: "declare 'reviewer' in the data schema" },
    { source: 'data.tags.exists(t, t == data.decison)', code: 'unknown_data_field', at: 'decison' },
  ],
});

table('settings_ref_unknown', {
  valid: [
    { source: 'data.count > settings.refundThreshold', expected: 'bool' },
    { source: 'settings.intake.mailbox', expected: 'string' },
    { source: "'settings.nothing' == data.decision" },
    // `catch … as: settings` binds the error to the name: that is not a read of the package settings.
    { source: 'settings.detail', env: catchAsSettings, expected: 'string' },
    { source: 'settings.anything', env: catchAsSettings },
  ],
  invalid: [
    { source: 'settings.refundTreshold', code: 'settings_ref_unknown', at: 'refundTreshold', hint: "did you mean 'refundThreshold'?" },
    { source: 'settings.intake.mailboxes', code: 'settings_ref_unknown', at: 'mailboxes', hint: "did you mean 'mailbox'?" },
    { source: 'settings.escalate', env: noSettings, code: 'settings_ref_unknown', hint: 'declare spec.settings in package.yaml' },
  ],
});

table('settings_ref_type', {
  valid: [
    { source: 'settings.refundThreshold', expected: 'int' },
    { source: "settings.channel == 'email'", expected: 'bool' },
    { source: "'chat' in settings.tags", expected: 'bool' },
  ],
  invalid: [
    { source: 'settings.channel > 5', code: 'settings_ref_type' },
    { source: 'settings.channel', expected: 'int', code: 'settings_ref_type', at: 'settings.channel' },
    { source: 'data.count + settings.escalate', code: 'settings_ref_type' },
  ],
});

table('expression_type_error', {
  valid: [
    { source: "stage['go-no-go'].completed && milestone.triaged", expected: 'bool' },
    { source: "duration('P3D') + duration('PT1H')", expected: 'duration' },
    { source: 'data.due + duration("P1DT2H")', expected: ['timestamp', 'duration'] },
    { source: "cal.addWorkdays(timestamp(data.due), -5, 'ru')", expected: 'timestamp' },
    { source: 'cal.workdaysBetween(instance.startedAt, instance.clock) > 3', expected: 'bool' },
    { source: "'claim:' + string(event.payload.ticketId)", expected: 'string' },
    { source: "{'id': data.purchase.number, 'amount': data.amount}" },
    { source: 'step.result.anything' },
    { source: "data.decision.lowerAscii().split('-').join(' ')", expected: 'string' },
    { source: "[task.assigneeId]", expected: 'list' },
    { source: "data.decision.replace('-', ' ').charAt(0) + data.decision.reverse()", expected: 'string' },
    { source: 'data.amount == 100.0 && data.amount > 100 && data.count > 1.5', expected: 'bool' },
    { source: 'double(${LIMIT}) < data.amount', variables: { LIMIT: { default: '500', kind: 'integer' } }, expected: 'bool' },
  ],
  invalid: [
    { source: "data.amount + 'x'", code: 'expression_type_error' },
    { source: "'x' + data.decision", expected: 'bool', code: 'expression_type_error' },
    { source: 'data.?decision', code: 'expression_type_error', hint: 'unwrap it: .orValue(<default>) or .value()' },
    { source: 'stage.intak.completed', code: 'expression_type_error', at: 'intak', hint: "did you mean 'intake'?" },
    { source: 'evnt.payload', code: 'expression_type_error', at: 'evnt', hint: "did you mean 'event'?" },
    { source: "duration('P1M')", code: 'expression_type_error', at: "'P1M'" },
    { source: "timestamp('2026-01-01')", code: 'expression_type_error', at: "'2026-01-01'" },
    { source: 'data.?count.orValue(1.0)', code: 'expression_type_error' },
    { source: 'instance.clok', code: 'expression_type_error', at: 'clok', hint: "did you mean 'clock'?" },
    { source: 'count()', code: 'expression_type_error' },
    { source: 'data.amount == 100', code: 'expression_type_error', hint: 'CEL does not mix int and double: write 100.0 for a double, or convert with double(…) / int(…)' },
    { source: 'data.decision == null', code: 'expression_type_error', hint: 'a field is not null, it is unset: test it with has(…)' },
    { source: 'data.amount > 1.0', env: createEnvironment({ ...PROCESS, step: 'none' }), expected: 'string', code: 'expression_type_error' },
  ],
});

table('aggregate_outside_metrics', {
  valid: [
    { source: 'count()', env: metrics },
    { source: 'sum(data.amount)', env: metrics },
    { source: 'param.id', env: view, expected: 'string' },
  ],
  invalid: [
    { source: 'count()', env: view, code: 'aggregate_outside_metrics', at: 'count()' },
    { source: 'sum(data.amount) > 10.0', env: view, code: 'aggregate_outside_metrics' },
  ],
});

describe('positions', () => {
  it('maps offsets through ${VARIABLE} substitution back to the text as written', () => {
    const source = 'double(${LIMIT}) < data.amout';
    const [d] = checkExpression(process, source, { variables: { LIMIT: { default: '500', kind: 'integer' } } }).diagnostics;
    expect(source.slice(d.offset, d.offset + d.length)).toBe('amout');
  });

  it('underlines the whole ${VARIABLE} when the error is inside its value', () => {
    const source = 'data.amount > ${LIMIT}';
    const [d] = checkExpression(process, source, { variables: { LIMIT: { example: "'x'" } }, expected: 'bool' }).diagnostics;
    expect(d.code).toBe('expression_type_error');
    expect(source.slice(d.offset, d.offset + d.length)).toBe(source);
  });

  it('lets a variable without any value stand as a value of any type', () => {
    expect(checkExpression(process, 'data.amount > ${UNDECLARED}', { expected: 'bool' }).diagnostics).toEqual([]);
    expect(checkExpression(process, "'x-${NAME}' == data.decision", { variables: { NAME: { kind: 'string' } } }).diagnostics).toEqual([]);
  });

  it('gives the value of a variable by its kind when nothing else is known', () => {
    const result = checkExpression(process, 'data.count > ${N}', { variables: { N: { kind: 'integer' } }, expected: 'bool' });
    expect(result.diagnostics).toEqual([]);
  });
});

describe('reads', () => {
  it('lists the data paths an expression reads, and which are guarded', () => {
    const { reads, settingsReads } = checkExpression(process,
      "has(data.count) && data.purchase.customer.inn == 'x' && data.?decision.orValue('') == 'go' && data.tags.exists(t, t == settings.channel)");
    expect(reads.map((r) => [r.path.join('.'), r.guarded])).toEqual([
      ['count', true], ['purchase.customer.inn', false], ['decision', true], ['tags', false],
    ]);
    expect(settingsReads.map((r) => r.path)).toEqual([['channel']]);
  });

  it('does not count an iteration variable named like a root, nor string literals', () => {
    const { reads, settingsReads } = checkExpression(process, "data.lines.map(data, data.sku).size() > 0 && 'settings.x' != ''");
    expect(reads.map((r) => r.path)).toEqual([['lines']]);
    expect(settingsReads).toEqual([]);
  });

  it('places a read at the text it covers', () => {
    const source = "'a' + data.purchase.number";
    const [read] = checkExpression(process, source).reads;
    expect(source.slice(read.offset, read.offset + read.length)).toBe('data.purchase.number');
  });

  it('reports the result type', () => {
    expect(checkExpression(process, 'data.lines.map(l, l.qty)').type).toBe('list<int>');
    expect(checkExpression(process, 'data.due').type).toBe('timestamp');
  });
});

describe('codes', () => {
  it('every code of the profile has its table of cases', () => {
    expect([...tabled].sort()).toEqual(Object.keys(CEL_CODES).sort());
  });
});
