/**
 * The process-language rules beyond the fixture table: the real processes of the corpus give no false finding,
 * decision-table cells and coverage search case by case, and the rules never throw on a spec the schema would
 * have refused.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../../src/check/index.js';
import { runRules } from '../../../src/check/rule.js';
import { decisionTables } from '../../../src/check/rules/decision-tables.js';
import { processExpressionRules } from '../../../src/check/rules/process-expressions.js';
import { processReachability } from '../../../src/check/rules/process-reachability.js';
import { viewExpressionRules } from '../../../src/check/rules/view-expressions.js';
import { loadTargets } from '../../../src/load/targets.js';
import { atomsOf, parseCell, uncoveredPoint } from '../../../src/model/decision-table.js';

const RULES = [processExpressionRules, viewExpressionRules, decisionTables, processReachability];
const CODES = new Set(RULES.flatMap((rule) => Object.keys(rule.codes)));
const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus');
const temp: string[] = [];
afterAll(() => temp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function ourFindings(options: Parameters<typeof check>[0]) {
  const { report, workspace } = await check(options);
  expect(workspace.objects('Process').length, 'a process was loaded').toBeGreaterThan(0);
  return [...report.errors, ...report.warnings]
    .filter((f) => CODES.has(f.code))
    .map((f) => `${f.file}:${f.line}:${f.column} ${f.code} ${f.message}`);
}

describe('the processes of the corpus', () => {
  it.each([
    ['claims', { cwd: join(CORPUS, 'claims'), install: 'packages.yaml' }],
    ['settings', { cwd: join(CORPUS, 'fixtures/settings/packages/claims-intake') }],
    ['sla', { cwd: join(CORPUS, 'fixtures/sla/packages/sla-demo') }],
    ['handoff', { cwd: join(CORPUS, 'fixtures/handoff/packages/intake-demo') }],
    ['screens', { cwd: join(CORPUS, 'fixtures/screens/packages/invoice-payment') }],
    ['pyramid', { cwd: join(CORPUS, 'fixtures/pyramid'), package: ['packages/review-base', 'packages/review-flow'] }],
    ['the bundled example', { cwd: resolve(import.meta.dirname, '../../../fixtures/example'), install: 'packages.yaml' }],
  ])('%s: no finding', async (_, options) => {
    expect(await ourFindings(options)).toEqual([]);
  });

  it('acme-claims: subject and kind are read by the memory projection, and nothing writes them', async () => {
    expect(await ourFindings({ cwd: join(CORPUS, 'fixtures/manifest/acme-claims') })).toEqual([
      'processes/claim.yaml:19:38 unwritten_data_field data.subject is read here, but no start.set, set or output.as writes it and spec.data does not require it',
      'processes/claim.yaml:20:19 unwritten_data_field data.kind is read here, but no start.set, set or output.as writes it and spec.data does not require it',
    ]);
  });

  it('purchase (in a package of its own): the level step writes approversNeeded, which spec.data does not declare', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'procdemo-'));
    temp.push(dir);
    mkdirSync(join(dir, 'processes'));
    copyFileSync(join(CORPUS, 'fixtures/process/purchase.process.yaml'), join(dir, 'processes/purchase.yaml'));
    writeFileSync(join(dir, 'package.yaml'), `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${dir.split('/').at(-1)}\nspec: {version: 1.0.0, displayName: Purchase}\n`);
    expect(await ourFindings({ cwd: dir })).toEqual([
      'processes/purchase.yaml:87:25 unknown_data_field data.approversNeeded is written here, but spec.data of the process does not declare it',
    ]);
  });
});

describe('decision table cells', () => {
  it.each([
    ['-', 'string', { any: true }],
    ['web', 'string', { values: ['web'] }],
    ['web, phone', 'string', { values: ['web', 'phone'] }],
    ["'a,b'", 'string', { values: ["'a", "b'"] }],
    [42, 'number', { values: [42] }],
    ['1,2.5', 'number', { values: [1, 2.5] }],
    ['[0..10)', 'number', { range: { low: 0, high: 10, lowOpen: false, highOpen: true } }],
    ['(..0]', 'number', { range: { low: -Infinity, high: 0, lowOpen: true, highOpen: false } }],
    [true, 'boolean', { values: [true] }],
    ['true,false', 'boolean', { values: [true, false] }],
    ['[2026-01-01..2026-02-01)', 'date', { range: { low: 20454, high: 20485, lowOpen: false, highOpen: true } }],
  ] as const)('%j as %s', (cell, type, parsed) => expect(parseCell(cell, type)).toEqual(parsed));

  it.each([
    ['[a..c)', 'string', 'a range needs a number'],
    ['ten', 'number', "'ten' is not a number"],
    ['yes', 'boolean', "'yes' is not true or false"],
    ['[10..5]', 'number', 'holds no value'],
    ['(5..5]', 'number', 'holds no value'],
    ['2026-13-45', 'date', 'is not a date'],
    ['2026-01-01', 'timestamp', 'is not an RFC 3339 timestamp'],
    ['web,', 'string', 'empty value'],
  ] as const)('%j as %s: %s', (cell, type, problem) => {
    const parsed = parseCell(cell, type);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });

  it('a text value outside the enum of the field is refused, with the right spelling as a hint', () => {
    expect(parseCell('Web', 'string', ['web', 'phone'])).toEqual({ problem: "'Web' is none of the values the field takes (web, phone)", hint: "did you mean 'web'?" });
  });

  it('cuts numbers into the points written and the intervals between them', () => {
    const domain = atomsOf('number', undefined, ['[0..10)', '-', '10']);
    expect(domain.atoms.map((_, i) => domain.describe(i))).toEqual(['= -1 (below 0)', '= 0', '= 5 (between 0 and 10)', '= 10', '= 11 (above 10)']);
    expect(domain.matching('[0..10)')).toEqual([1, 2]);
    expect(domain.matching(undefined)).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops intervals that hold no integer for integer inputs', () => {
    const domain = atomsOf('integer', undefined, ['[1..2]', '[3..4]']);
    expect(domain.atoms.map((_, i) => domain.describe(i))).toEqual(['= 0 (below 1)', '= 1', '= 2', '= 3', '= 4', '= 5 (above 4)']);
  });

  it('finds a point outside every box, or none when they cover the space', () => {
    const all = [[0, 1, 2], [0, 1]];
    expect(uncoveredPoint([[[0, 1], [0, 1]], [[2], [0]]], all)).toEqual([2, 1]);
    expect(uncoveredPoint([[[0, 1], [0, 1]], [[2], [0, 1]]], all)).toBeUndefined();
    expect(uncoveredPoint([], all)).toEqual([0, 0]);
  });
});

describe('the rules never throw on odd specs', () => {
  it('runs over processes and views whose parts have unexpected shapes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'odd-'));
    temp.push(dir);
    const odd = [
      { stages: 'none', decisions: [{ id: 't', hitPolicy: 'unique', inputs: 'x', rules: [{ when: 3, then: [] }, null] }] },
      { data: { type: 'object', properties: { a: 1 } }, start: { set: { 'a.b': 5 } }, stages: [{ id: 's', entry: '((', steps: [{ id: 'x', do: 'y' }, null] }] },
      { decisions: [{ id: 't', hitPolicy: 'first', inputs: [{ id: 'a', expr: 'data.a' }], outputs: [{ id: 'o' }], rules: [{ when: { a: '[1..' }, then: { o: 1 } }] }], stages: [{ id: 's', milestones: [{ id: 'm' }, 'x'], steps: [{ id: 'c', complete: {} }, { id: 'd', set: 'x' }] }] },
    ];
    mkdirSync(join(dir, 'processes'));
    mkdirSync(join(dir, 'views'));
    writeFileSync(join(dir, 'package.yaml'), `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${dir.split('/').at(-1)}\nspec: {version: 1.0.0, displayName: Odd, settings: 7}\n`);
    odd.forEach((spec, i) => writeFileSync(join(dir, 'processes', `p${i}.yaml`), JSON.stringify({ apiVersion: 'taimen.ai/v1', kind: 'Process', key: `p${i}`, spec })));
    writeFileSync(join(dir, 'views', 'v.yaml'), JSON.stringify({ apiVersion: 'taimen.ai/v1', kind: 'View', key: 'v', spec: { source: { process: 'p1' }, params: { x: { schema: { $ref: 'nowhere.json#/a' } } }, layout: [{ block: 'table', columns: [{ value: 'param.x.y + data.a' }] }] } }));
    const workspace = await loadTargets({ cwd: dir });
    expect(() => runRules(workspace, RULES, new Set())).not.toThrow();
  });
});
