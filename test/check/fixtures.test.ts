/**
 * The fixture table of the rules (STYLE.md §1): every code a rule declares has cases under
 * fixtures/check/<code>/valid/ that give no finding at all and under fixtures/check/<code>/invalid/ that give
 * exactly what their expected.yaml lists. A case is a base of fixtures/check/_bases/ with a few files laid over
 * it (fixtures/check/README.md), checked as a user would.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/check/rule.js';
import { RULES } from '../../src/check/rules/index.js';
import { FIXTURES } from '../support/overlay.js';
import { type CaseTable, type ExpectedFinding, expectedFindings, ruleTester } from './rule-tester.js';

const CASES = join(FIXTURES, 'check');

function cases(code: string, kind: 'valid' | 'invalid'): string[] {
  const dir = join(CASES, code, kind);
  return existsSync(dir) ? readdirSync(dir).sort().map((name) => join(dir, name)) : [];
}

/** Each code once, under the first rule that declares it (a code several rules report has one set of cases). */
const firstRuleOf = new Map<string, Rule>();
for (const rule of RULES) for (const code of Object.keys(rule.codes)) if (!firstRuleOf.has(code)) firstRuleOf.set(code, rule);
const codes = [...firstRuleOf].map(([code, rule]) => ({ code, rule: rule.id }));

describe('every rule code has fixtures', () => {
  it.each(codes)('$code ($rule) has a valid and an invalid case', ({ code }) => {
    expect(cases(code, 'valid').length, `fixtures/check/${code}/valid/<case>/`).toBeGreaterThan(0);
    expect(cases(code, 'invalid').length, `fixtures/check/${code}/invalid/<case>/`).toBeGreaterThan(0);
  });
});

for (const rule of RULES) {
  const tables: CaseTable[] = Object.keys(rule.codes)
    .filter((code) => firstRuleOf.get(code) === rule)
    .map((code) => ({ code, valid: cases(code, 'valid'), invalid: cases(code, 'invalid') }));
  if (tables.length > 0) ruleTester.run(rule, tables); // a rule whose codes all have their cases under an earlier rule
}

describe('the rule tester refuses a case that proves nothing', () => {
  const at = { file: 'packages/orders/processes/order.yaml', line: 3, column: 6, path: '/key' };
  const duplicate: ExpectedFinding = { code: 'duplicate_object', ...at, data: { ref: 'Process/order', first: 'packages/orders/order.yaml' } };

  it('builds the message of a rule code from its data with the rule\'s own words', () => {
    expect(expectedFindings('duplicate_object', [duplicate])).toEqual([
      { code: 'duplicate_object', ...at, message: 'Process/order is already declared in packages/orders/order.yaml' },
    ]);
  });

  it.each([
    ['an invalid case that expects nothing', [], /expects at least one finding/],
    ['an invalid case that expects only other codes', [{ ...duplicate, code: 'variable_unused' }], /expects a duplicate_object finding/],
    ['a code nothing declares', [duplicate, { ...duplicate, code: 'duplicate_objekt' }], /no rule and no entry of the code catalog declares 'duplicate_objekt'/],
    ['data missing a field the message reads', [{ ...duplicate, data: { ref: 'Process/order' } }], /lacks the field 'first'/],
    ['a message written for a rule code', [{ ...duplicate, data: undefined, message: 'Process/order is already declared' }], /write its data, not the message/],
    ['data for a code of loading', [duplicate, { code: 'invalid_yaml', ...at, data: { reason: 'tab' } }], /write its message, not data/],
    ['a code several rules declare, without its rule', [duplicate, { code: 'unknown_skill', ...at, data: { field: 'skill', id: 'x@1', pkg: 'p' } }], /name the rule that reports it/],
    ['a rule that does not declare the code', [{ ...duplicate, rule: 'references/closure' }], /rule 'references\/closure' does not declare/],
    ['a schema violation in a case of a rule', [duplicate, { code: 'schema_violation', ...at, message: 'must be string' }], /pass the schema/],
  ] as const)('refuses %s', (_name, expected, refusal) => {
    expect(() => expectedFindings('duplicate_object', expected as readonly ExpectedFinding[])).toThrow(refusal);
  });
});
