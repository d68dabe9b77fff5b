// Which fields of a process and of a view are expressions, in which environment, and of which type (cp/1).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkExpression, createEnvironment, viewExpressions } from '../../src/cel/index.js';
import { expressionProfile, processExpressions, processProfile, stepResultOf } from '../../src/process/index.js';
import type { JsonSchema } from '../../src/cel/index.js';
import type { ProcessExpression } from '../../src/process/index.js';

const root = resolve(import.meta.dirname, '../..');
const spec = (parse(readFileSync(resolve(root, 'fixtures/cel/shapes.process.yaml'), 'utf8')) as { spec: Record<string, unknown> }).spec;
const SETTINGS: JsonSchema = { type: 'object', properties: { ownerRole: { type: 'string' }, answerDays: { type: 'integer' } } };
const expressions = processExpressions(spec);
const base = processProfile(spec, SETTINGS);
const at = (pointer: string): ProcessExpression => {
  const found = expressions.find((e) => e.pointer === pointer);
  if (found === undefined) throw new Error(`no expression at ${pointer}`);
  return found;
};
const results = (step: Record<string, unknown>) => stepResultOf(step, spec.decisions as Record<string, unknown>[]);
const check = (e: ProcessExpression, source = e.source) =>
  checkExpression(createEnvironment(expressionProfile(base, e, results)), source, { expected: e.expected });

describe('processExpressions', () => {
  it('finds every expression of the fixture, in document order, with what each field needs', () => {
    expect(expressions.map((e) => [e.pointer, e.expected])).toEqual([
      ['/spec/owner/0/expr', 'string'],
      ['/spec/start/on/where', 'bool'],
      ['/spec/start/key', ['string', 'int', 'uint']],
      ['/spec/start/set/amount', undefined],
      ['/spec/start/set/due', undefined],
      ['/spec/decisions/0/inputs/0/expr', undefined],
      ['/spec/stages/0/exit', 'bool'],
      ['/spec/stages/0/steps/0/output/as/level', undefined],
      ['/spec/stages/0/steps/0/decide/input/amount', undefined],
      ['/spec/stages/0/steps/1/when', 'bool'],
      ['/spec/stages/0/steps/1/output/as/answer', undefined],
      ['/spec/stages/0/steps/1/output/as/reviewer', undefined],
      ['/spec/stages/0/steps/1/human/title', 'string'],
      ['/spec/stages/0/steps/1/human/due/workdays/expr', ['int', 'uint']],
      ['/spec/stages/0/steps/1/human/due/warnBefore/workhours/expr', ['int', 'uint']],
      ['/spec/stages/0/steps/2/try/do/0/call/input/amount', undefined],
      ['/spec/stages/0/steps/2/try/do/0/call/timeout/at', ['timestamp', 'duration']],
      ['/spec/stages/0/steps/2/try/catch/0/do/0/set/failure', undefined],
      ['/spec/stages/0/steps/2/try/catch/1/do/0/set/failure', undefined],
      ['/spec/stages/0/steps/3/wait/at', ['timestamp', 'duration']],
      ['/spec/stages/0/steps/4/fork/branches/0/do/0/set/answer', undefined],
      ['/spec/stages/0/steps/4/fork/branches/1/do/0/listen/any/0/on/where', 'bool'],
      ['/spec/stages/0/milestones/0/when', 'bool'],
      ['/spec/stages/0/timers/0/at/at', ['timestamp', 'duration']],
      ['/spec/stages/0/timers/0/do/0/set/failure', undefined],
    ]);
  });

  it('checks every expression of the fixture clean in its environment', () => {
    const findings = expressions.flatMap((e) => check(e).diagnostics.map((d) => `${e.pointer}: ${d.code} ${d.message}`));
    expect(findings).toEqual([]);
  });

  it('binds a catch clause name, even `settings`, to the error and not to the package settings', () => {
    const shadowed = at('/spec/stages/0/steps/2/try/catch/0/do/0/set/failure');
    expect(shadowed.catchNames).toEqual(['settings']);
    expect(check(shadowed).settingsReads).toEqual([]);
    expect(check(shadowed).diagnostics).toEqual([]);
    const named = at('/spec/stages/0/steps/2/try/catch/1/do/0/set/failure');
    expect(named.catchNames).toEqual(['err']);
    // Outside the catch the package settings are read as usual.
    expect(check(at('/spec/owner/0/expr')).settingsReads.map((r) => r.path)).toEqual([['ownerRole']]);
  });

  it('types step.result of an output mapping by the human step form', () => {
    const answer = at('/spec/stages/0/steps/1/output/as/answer');
    expect(check(answer).type).toBe('string');
    const [d] = check(answer, 'step.result.answr').diagnostics;
    expect([d.code, d.hint]).toEqual(['expression_type_error', 'step.result has answer']);
  });

  it('types step.result of an output mapping by the decision table outputs', () => {
    const level = at('/spec/stages/0/steps/0/output/as/level');
    expect(check(level).type).toBe('string');
    expect(check(level, 'step.result.approvers').type).toBe('double');
  });

  it('lets a decision table input give anything: its type is the input type when none is written', () => {
    const input = at('/spec/decisions/0/inputs/0/expr');
    expect(check(input).diagnostics).toEqual([]);
    expect(check(input, 'data.level').diagnostics).toEqual([]);
  });

  it('types the result of the step being compensated as compensated.result', () => {
    const compensation = processExpressions({
      stages: [{ id: 's', steps: [{ id: 'ask', human: { taskType: 't', form: { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
        onCompensate: [{ id: 'undo', set: { note: 'compensated.result.ok' } }] }] }],
    });
    const [undo] = compensation;
    expect(undo!.compensated).toBeDefined();
    expect(check(undo!).type).toBe('bool');
    expect(check(undo!, 'compensated.result.okk').diagnostics.map((d) => d.hint)).toEqual(['compensated.result has ok']);
  });

  it('needs a key of a memory entity, or a list of keys with many: true, and types a recall filter by its op', () => {
    const found = processExpressions({
      memory: { entities: [{ key: 'data.a', many: true }, { key: 'data.b' }] },
      stages: [{ id: 's', steps: [{ id: 'r', recall: { where: [{ field: 'f', op: 'in', value: 'data.c' }, { field: 'g', op: 'eq', value: ['data.d', 3] }] } }] }],
    });
    expect(found.map((e) => [e.pointer, e.expected])).toEqual([
      ['/spec/memory/entities/0/key', 'list'],
      ['/spec/memory/entities/1/key', ['string', 'int', 'uint']],
      ['/spec/stages/0/steps/0/recall/where/0/value', 'list'],
      ['/spec/stages/0/steps/0/recall/where/1/value/0', undefined],
    ]);
  });

  it('skips what is not a string and parts of the wrong shape', () => {
    expect(processExpressions({ stages: 'nope', start: { key: 5, set: [] }, owner: [{ expr: 'true' }, 7] })).toEqual([
      { pointer: '/spec/owner/0/expr', source: 'true', expected: 'string', catchNames: [] },
    ]);
  });
});

describe('viewExpressions', () => {
  it('allows aggregates only in metrics and chart blocks', () => {
    const found = viewExpressions({
      source: { process: 'p', filter: "status == 'running'" },
      layout: [
        { block: 'metrics', items: [{ title: 't', value: 'count()' }] },
        { block: 'fields', items: [{ value: 'data.a' }, { field: 'data.b' }] },
        { block: 'chart', value: 'sum(data.a)' },
        { block: 'table', columns: [{ value: 'data.a' }], open: { view: 'v', id: 'id', params: { x: 'data.b' } } },
        { block: 'component', with: { a: 'data' } },
      ],
    });
    expect(found.map((e) => [e.pointer, e.aggregates])).toEqual([
      ['/spec/source/filter', false],
      ['/spec/layout/0/items/0/value', true],
      ['/spec/layout/1/items/0/value', false],
      ['/spec/layout/2/value', true],
      ['/spec/layout/3/columns/0/value', false],
      ['/spec/layout/3/open/id', false],
      ['/spec/layout/3/open/params/x', false],
      ['/spec/layout/4/with/a', false],
    ]);
  });
});
