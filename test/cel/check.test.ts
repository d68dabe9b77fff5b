// Each code of the cp/1 profile: cases that must raise it, near-misses that must not.
import { describe, expect, it } from 'vitest';
import { CEL_CODES, checkExpression, createEnvironment, evaluate, LIMITS } from '../../src/cel/index.js';
import { PROCESS_ERROR_SCHEMA } from '../../src/process/index.js';
import type { CelCode, CelTypeName, CheckOptions, JsonSchema, Profile } from '../../src/cel/index.js';
import { measureTree, type TreeNode } from '../../src/cel/measure.js';
import { seeded } from '../support/seeded.js';

const DATA: JsonSchema = {
  type: 'object',
  required: ['amount'],
  properties: {
    amount: { type: 'number' },
    count: { type: 'integer' },
    decision: { type: 'string', enum: ['go', 'no-go'] },
    tags: { type: 'array', items: { type: 'string' } },
    due: { type: 'string', format: 'date-time' },
    wait: { type: 'string', format: 'duration' },
    purchase: {
      type: 'object',
      properties: { number: { type: 'string' }, customer: { type: 'object', properties: { inn: { type: 'string' } } } },
    },
    meta: { type: 'object' },
    lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } } },
    refs: { type: 'array', items: { $ref: '#/$defs/line' } },
  },
  $defs: { line: { type: 'object', properties: { sku: { type: 'string' } } } },
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

const PROCESS: Profile = { kind: 'process', data: DATA, settings: SETTINGS, settingsPackage: 'claims', stages: ['intake', 'go-no-go'] };
const process = createEnvironment(PROCESS);
const noSettings = createEnvironment({ ...PROCESS, settings: undefined });
const outsidePackage = createEnvironment({ ...PROCESS, settings: undefined, settingsPackage: undefined });
const withCalendar = createEnvironment({ ...PROCESS, calendar: true });
const selectableStages = createEnvironment({ ...PROCESS, stages: ['intake', 'review'] });
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
    { source: '(data.amount', code: 'expression_syntax_error', message: "Syntax error: expected ')', found the end of the expression at 1:13" },
    { source: '   ', code: 'expression_syntax_error', message: 'an expression must be a non-empty string' },
  ],
});

const nots = (n: number) => `${'!'.repeat(n)}true`;
/** `n` terms joined by `op`: a flat chain the core balances. */
const chain = (n: number, op: string) => Array.from({ length: n }, (_, i) => `data.count == ${i}`).join(` ${op} `);
/** Three comprehensions nested, under `n` negations: the checked tree is 17 deeper than `n`, the text's 8. */
const negatedMaps = (n: number) =>
  `${'!'.repeat(n)}(data.tags.map(a, true, data.tags.map(b, true, data.tags.map(c, true, 1).size()).size()).size() > 0)`;
/** `n` optMap nested in each other's function: three levels of the checked tree each, one of the text's. */
const optMaps = (n: number): string => (n === 0 ? 'true' : `optional.of(data.count).optMap(x${n}, ${optMaps(n - 1)})`);
table('expression_too_complex', {
  valid: [
    { source: `'${'a'.repeat(LIMITS.length - 2)}'` },
    // Length is counted in characters (code points), as the core counts it.
    { source: `'${'😀'.repeat(LIMITS.length - 2)}'` },
    { source: nots(LIMITS.depth - 1) },
    { source: 'data.tags.all(a, data.tags.all(b, data.tags.all(c, a == b && b == c)))' },
    // A guard of 33 terms is a balanced tree of 7 levels in the core, not 33.
    { source: chain(33, '||'), expected: 'bool' },
    { source: `(${chain(20, '&&')}) || (${chain(20, '&&')})`, expected: 'bool' },
    // cel.bind is a comprehension over an empty list: it does not count for the nesting limit.
    { source: 'cel.bind(x, data.tags, x.all(a, x.all(b, x.all(c, a == c))))' },
    { source: `${optMaps(9)}.hasValue()`, expected: 'bool' },
    { source: negatedMaps(LIMITS.depth - 17), expected: 'bool' },
  ],
  invalid: [
    { source: `'${'a'.repeat(LIMITS.length - 1)}'`, code: 'expression_too_complex' },
    { source: nots(LIMITS.depth), code: 'expression_too_complex' },
    {
      source: 'data.tags.all(a, data.tags.all(b, data.tags.all(c, data.tags.all(d, a == d))))',
      code: 'expression_too_complex',
      at: 'data.tags.all(d, a == d)',
    },
    { source: '[1].all(a, [1].all(b, [1].all(c, [1].all(d, true))))', code: 'expression_too_complex' },
    // Parentheses end a chain: a left-nested chain of parenthesized pairs is as deep as it looks.
    { source: `${'('.repeat(32)}true${' || true)'.repeat(32)}`, code: 'expression_too_complex' },
    // Short in the text, deep once the macros are expanded.
    { source: `${optMaps(10)}.hasValue()`, expected: 'bool', code: 'expression_too_complex' },
    { source: negatedMaps(LIMITS.depth - 16), expected: 'bool', code: 'expression_too_complex' },
  ],
});

describe('the limits of depth and nesting', () => {
  /** A well-typed truth of random shape: chains, parentheses, macros, optMap, cel.bind, calls, selects, has(). */
  function truth(random: () => number, budget: number): string {
    const pick = (n: number) => Math.floor(random() * n);
    if (budget <= 1) return ['true', 'has(data.decision)', "(data.?decision.orValue('') == 'go')", '(data.amount > 1.0)'][pick(4)]!;
    const inner = () => truth(random, budget - 1 - pick(2));
    const forms = [
      () => `!${inner()}`,
      () => `(${inner()})`,
      () => Array.from({ length: 2 + pick(9) }, inner).join(random() < 0.5 ? ' && ' : ' || '),
      () => `data.tags.${['all', 'exists', 'exists_one'][pick(3)]}(t, ${inner()})`,
      () => `(data.tags.filter(t, ${inner()}).size() > 0)`,
      () => `(data.tags.map(t, ${inner()}, 1).size() > 0)`,
      () => `data.lines.map(l, ${inner()})[0]`,
      () => `optional.of(1).optMap(x, ${inner()}).orValue(true)`,
      () => `cel.bind(x, data.count, ${inner()})`,
      () => `(${inner()} ? ${inner()} : ${inner()})`,
      () => `[${inner()}, true][0]`,
      () => `{'k': ${inner()}}['k']`,
      () => `(string(${inner()}).size() > 0)`,
    ];
    return forms[pick(forms.length)]!();
  }

  it('reports exactly the expressions whose checked tree is too deep or too nested, shallow ones included', () => {
    const random = seeded(16);
    const verdicts = { tooComplex: 0, within: 0, nearLimit: 0 };
    for (let i = 0; i < 600; i++) {
      const source = truth(random, 2 + (i % 12));
      const measured = measureTree(process.cel.parse(source).ast as unknown as TreeNode, source);
      const tooComplex = measured.depth > LIMITS.depth || measured.nesting > LIMITS.comprehensionNesting;
      const codes = checkExpression(process, source, { expected: 'bool' }).diagnostics.map((d) => d.code);
      expect({ source, codes }).toEqual({ source, codes: tooComplex ? ['expression_too_complex'] : [] });
      verdicts[tooComplex ? 'tooComplex' : 'within']++;
      if (!tooComplex && measured.depth > LIMITS.depth - 8) verdicts.nearLimit++;
    }
    // Both verdicts occur, and expressions close to the limit pass: the comparison proves something.
    expect(verdicts.tooComplex).toBeGreaterThan(50);
    expect(verdicts.within).toBeGreaterThan(50);
    expect(verdicts.nearLimit).toBeGreaterThan(20);
  });
});

table('settings_ref_unknown', {
  valid: [
    { source: 'data.count > settings.refundThreshold', expected: 'bool' },
    { source: 'settings.intake.mailbox', expected: 'string' },
    { source: "'settings.nothing' == data.decision" },
    // `catch … as: settings` binds the error to the name: that is not a read of the package settings.
    { source: 'settings.detail', env: catchAsSettings, expected: 'string' },
  ],
  invalid: [
    { source: 'settings.refundTreshold', code: 'settings_ref_unknown', at: 'refundTreshold', hint: "did you mean 'refundThreshold'?" },
    { source: 'settings.intake.mailboxes', code: 'settings_ref_unknown', at: 'mailboxes', hint: "did you mean 'mailbox'?" },
    { source: 'settings.escalate', env: noSettings, code: 'settings_ref_unknown', message: 'settings.escalate: package claims declares no settings', hint: 'declare spec.settings in package.yaml' },
    { source: 'settings.escalate', env: outsidePackage, code: 'settings_ref_unknown', message: 'settings.escalate: the object is not from a package: it has no settings' },
  ],
});

table('settings_ref_type', {
  valid: [
    { source: 'settings.refundThreshold', expected: 'int' },
    { source: "settings.channel == 'email'", expected: 'bool' },
    { source: "'chat' in settings.tags", expected: 'bool' },
    // Every settings field is nullable: an unsaved one reads null.
    { source: 'settings.refundThreshold == null', expected: 'bool' },
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
    { source: 'stage.intak.completed', expected: 'bool' },
    { source: "duration('P3D') + duration('PT1H')", expected: 'duration' },
    { source: 'data.due + duration("P1DT2H")', expected: ['timestamp', 'duration'] },
    { source: "duration('72h') + data.due", expected: ['timestamp', 'duration'] },
    { source: "cal.addWorkdays(data.due, -5, 'ru')", expected: 'timestamp' },
    { source: "cal.workdaysBetween(instance.startedAt, instance.clock, 'ru') > 3", expected: 'bool' },
    { source: 'cal.workdaysBetween(instance.startedAt, instance.clock) > 3', env: withCalendar, expected: 'bool' },
    { source: "cal.workingTimeBetween(data.due, instance.clock, 'ru') > duration('PT8H')", expected: 'bool' },
    { source: "'claim:' + string(event.payload.ticketId)", expected: 'string' },
    { source: "{'id': data.purchase.number, 'amount': data.amount}" },
    { source: 'step.result.anything' },
    { source: 'step.status == "completed" && step.id != ""', expected: 'bool' },
    { source: "data.decision.lowerAscii().split('-').join(' ')", expected: 'string' },
    { source: '[task.assigneeId]', expected: 'list' },
    { source: "data.decision.replace('-', ' ').charAt(0) + data.decision.reverse()", expected: 'string' },
    { source: 'data.amount == 100.0 && data.amount > 100 && data.count > 1.5', expected: 'bool' },
    { source: 'double(${LIMIT}) < data.amount', variables: { LIMIT: { default: '500', kind: 'integer' } }, expected: 'bool' },
    // A field the parent does not require is nullable; a timestamp, a message and a list compare with null too.
    { source: 'data.decision == null || data.count == null || data.due == null || data.purchase == null || data.tags == null', expected: 'bool' },
    { source: 'string(data.due) + string(duration("PT1H")) + string(int(data.due))', expected: 'string' },
    { source: "data.?decision.optMap(d, d + '!').orValue('')", expected: 'string' },
    { source: "data.?purchase.optFlatMap(p, p.?number).orValue('')", expected: 'string' },
    { source: 'optional.of(data.count) == optional.none()', expected: 'bool' },
    { source: "optional.ofNonZeroValue(data.decision).orValue('none')", expected: 'string' },
    { source: "decimal('1500000.50') + decimal(data.count) + decimal(2.5) > 1.0", expected: 'bool' },
    { source: '[3, 1, 2].sort().slice(0, 2).size() + [[1], [2]].flatten().distinct().size()', expected: 'int' },
    { source: "data.decision.matches('(?i)^GO$') && matches(data.decision, '[[:alpha:]]+')", expected: 'bool' },
    { source: "'%s of %d'.format([data.decision, data.count])", expected: 'string' },
    { source: 'has(data.lines[0].sku) && has(data.purchase.customer.inn)', expected: 'bool' },
    { source: 'data.wait + data.due', expected: 'timestamp' },
    { source: 'data.amount > 1.0', env: createEnvironment({ ...PROCESS, step: 'none' }), expected: 'bool' },
  ],
  invalid: [
    { source: "data.amount + 'x'", code: 'expression_type_error', message: "found no matching overload for '_+_' applied to '(double, string)' at 1:1" },
    { source: "'x' + data.decision", expected: 'bool', code: 'expression_type_error', message: 'the expression gives string, bool is expected here' },
    { source: 'data.purchase', expected: 'string', code: 'expression_type_error', message: 'the expression gives an object, string is expected here' },
    { source: 'data.?decision', code: 'expression_type_error', message: 'the expression yields an optional value: end it with .orValue(...)' },
    { source: 'stage.revew.completed', env: selectableStages, code: 'expression_type_error', at: 'revew', hint: 'stage has review' },
    { source: 'evnt.payload', code: 'expression_type_error', at: 'evnt', hint: "did you mean 'event'?" },
    { source: "duration('P1M')", code: 'expression_type_error', at: "'P1M'", message: "'P1M' is not an ISO 8601 duration of weeks, days, hours, minutes, seconds" },
    { source: 'instance.clok', code: 'expression_type_error', at: 'clok', hint: 'instance has clock' },
    { source: 'event.source', code: 'expression_type_error', at: 'source' },
    { source: 'count()', code: 'expression_type_error' },
    { source: 'data.amount == 100', code: 'expression_type_error', hint: 'CEL does not mix int and double: write 100.0 for a double, or convert with double(…) / int(…)' },
    { source: 'data.amount == null', code: 'expression_type_error' },
    { source: 'data.amount > 1.0', env: createEnvironment({ ...PROCESS, step: 'none' }), expected: 'string', code: 'expression_type_error' },
    // An undeclared field is a type error in the core, under has() and .? too.
    { source: 'data.amout > 1.0', code: 'expression_type_error', at: 'amout', message: "undefined field 'amout' not found in struct 'data'", hint: 'data has amount' },
    { source: 'has(data.amout)', code: 'expression_type_error', at: 'amout' },
    { source: 'data.?amout.orValue(1.0) > 2.0', code: 'expression_type_error', at: 'amout' },
    { source: 'data.purchase.customer.inm', code: 'expression_type_error', at: 'inm', hint: 'data.purchase.customer has inn' },
    { source: "data['amout']", code: 'expression_type_error', at: "'amout'" },
    { source: 'data.tags.exists(t, t == data.decison)', code: 'expression_type_error', at: 'decison' },
    { source: 'data.lines.exists(l, l.skuu == "x")', code: 'expression_type_error', hint: 'data.lines has sku' },
    // No current time: an instance must compute the same when it is replayed.
    { source: 'now() > data.due', code: 'expression_type_error', at: 'now()', message: "undeclared reference to 'now'", hint: 'there is no current time: use event.time or instance.clock' },
    { source: 'data.due < now', code: 'expression_type_error', at: 'now' },
    // cal.* without a calendar key exists only with spec.calendar; working time is a duration, never hours.
    { source: 'cal.addWorkdays(data.due, 2)', code: 'expression_type_error', hint: 'the process names no spec.calendar: give cal.* the calendar key as its last argument' },
    { source: 'cal.addWorkingTime(data.due, 8)', env: withCalendar, code: 'expression_type_error' },
    { source: 'cal', code: 'expression_type_error', message: "undeclared reference to 'cal'" },
    { source: "data.decision.matches('go(?=!)')", code: 'expression_type_error', at: "'go(?=!)'" },
    { source: "matches(data.decision, '(a)\\\\1')", code: 'expression_type_error' },
    { source: 'decimal(true)', code: 'expression_type_error' },
    { source: 'data.tags.sort()[0] + 1', expected: 'string', code: 'expression_type_error' },
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

describe('the cache of checked expressions', () => {
  it('keeps apart the same text checked for other places and with other variable values', () => {
    const source = 'data.amount > ${LIMIT}';
    expect(checkExpression(process, source, { variables: { LIMIT: { value: '1.5' } }, expected: 'bool' }).diagnostics).toEqual([]);
    expect(checkExpression(process, source, { variables: { LIMIT: { value: "'x'" } }, expected: 'bool' }).diagnostics.map((d) => d.code)).toEqual(['expression_type_error']);
    expect(checkExpression(process, source, { variables: { LIMIT: { value: '1.5' } }, expected: 'string' }).diagnostics.map((d) => d.code)).toEqual(['expression_type_error']);
    expect(checkExpression(process, source, { variables: { LIMIT: { value: '1.5' } }, expected: 'bool' }).diagnostics).toEqual([]);
  });

  it('does not take a text holding a control character for another text checked for another place', () => {
    expect(checkExpression(process, "'a'", { expected: 'bool' }).diagnostics.map((d) => d.code)).toEqual(['expression_type_error']);
    expect(checkExpression(process, "'a'\u0000bool").diagnostics.map((d) => d.code)).toEqual(['expression_syntax_error']);
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
    // The core resolves no $ref inside a schema: what it names is dyn.
    expect(checkExpression(process, 'data.refs.map(l, l.anything)').type).toBe('list');
    expect(checkExpression(process, 'data.decision').type).toBe('string');
  });

  it('lists every variable an expression reads, outside names a macro binds', () => {
    expect([...checkExpression(process, "stage.intake.completed && data.lines.exists(event, event.sku == 'x') && milestone.m").roots]).toEqual(['stage', 'data', 'milestone']);
  });
});

describe('codes', () => {
  it('every code of the profile has its table of cases', () => {
    expect([...tabled].sort()).toEqual(Object.keys(CEL_CODES).sort());
  });
});

describe('the patched CEL library', () => {
  // has() of a field whose operand is an index or a call is valid CEL; the library refused it until
  // patches/@marcbachmann+cel-js+8.0.0.patch, which npm install applies. This fails when the patch is lost.
  it('type-checks and evaluates has() over an index', () => {
    expect(checkExpression(process, 'has(data.lines[0].sku)', { expected: 'bool' }).diagnostics).toEqual([]);
    expect(evaluate(process, 'has(data.lines[0].sku)', { data: { lines: [{ sku: 'a' }] } })).toBe(true);
    expect(evaluate(process, 'has(data.lines[0].sku)', { data: { lines: [{ qty: 1 }] } })).toBe(false);
    expect(evaluate(process, "has({'a': 1}.a) && !has({'a': 1}.b)", {})).toBe(true);
  });

  // Optional elements and entries of literals (cel-spec: [?x], {?k: v}) are valid in the core; the library
  // refused them as syntax errors until the same patch.
  it('type-checks and evaluates optional list elements and map entries', () => {
    expect(checkExpression(process, "[?data.?purchase.?number, 'x']", { expected: 'list' })).toMatchObject({ type: 'list<string>', diagnostics: [] });
    expect(evaluate(process, "[?data.?purchase.?number, 'x']", { data: { purchase: { number: 'P-1' } } })).toEqual(['P-1', 'x']);
    expect(evaluate(process, "[?data.?purchase.?number, 'x']", { data: {} })).toEqual(['x']);
    expect(checkExpression(process, "{'a': 1, ?'b': data.?count}", { expected: 'map' })).toMatchObject({ type: 'map<string, int>', diagnostics: [] });
    expect(evaluate(process, "{'a': 1, ?'b': data.?count}", { data: { count: 2 } })).toEqual({ a: 1, b: 2 });
    expect(evaluate(process, "{'a': 1, ?'b': data.?count}", { data: {} })).toEqual({ a: 1 });
    expect(evaluate(process, '[1, ?optional.none(), 3].size()', {})).toBe(2);
  });

  // A fixed offset is a time zone of CEL's timestamp accessors; the library handed it to Intl, which knows
  // it only from Node 22 on, until the same patch.
  it('reads the parts of a timestamp at a fixed offset', () => {
    expect(evaluate(process, "timestamp('2026-01-05T08:30:00Z').getHours('+01:00')", {})).toBe(9);
    expect(evaluate(process, "timestamp('2026-01-05T02:10:00Z').getHours('-05:30')", {})).toBe(20);
    expect(evaluate(process, "timestamp('2026-01-05T02:10:00Z').getMinutes('-05:30')", {})).toBe(40);
    expect(evaluate(process, "timestamp('2026-01-05T02:10:00Z').getDate('-05:30')", {})).toBe(4);
    expect(evaluate(process, "timestamp('2026-01-05T08:30:00Z').getHours('Europe/Berlin')", {})).toBe(9);
  });

  it('refuses an optional element that is not an optional', () => {
    const [d] = checkExpression(process, '[?data.amount]').diagnostics;
    expect(d).toMatchObject({ code: 'expression_type_error', message: expect.stringContaining("must be optional, got 'double'") });
  });
});

describe('strings.quote', () => {
  it('quotes text as a CEL string literal', () => {
    expect(checkExpression(process, 'strings.quote(data.decision)', { expected: 'string' }).diagnostics).toEqual([]);
    expect(evaluate(process, 'strings.quote(data.decision)', { data: { decision: 'a "b"\\c\n' } })).toBe('"a \\"b\\"\\\\c\\n"');
    expect(checkExpression(process, 'strings.quote(1)').diagnostics.map((d) => d.code)).toEqual(['expression_type_error']);
  });

  it('is a function, not a variable a catch can rebind: the name stays the function', () => {
    const caught = createEnvironment({ ...PROCESS, extraVariables: { strings: PROCESS_ERROR_SCHEMA, optional: PROCESS_ERROR_SCHEMA } });
    expect(checkExpression(caught, "strings.quote('x') + string(optional.of(1).value())").diagnostics).toEqual([]);
    expect(checkExpression(caught, 'strings.type').diagnostics.map((d) => d.code)).toEqual(['expression_type_error']);
  });
});
