/**
 * The process-language rules beyond the fixture table: our packages give no false finding, a field only the
 * memory projection reads and a decision written to an undeclared field are reported, decision-table cells and
 * coverage search case by case, and the rules never throw on a spec the schema would have refused.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRules } from '../../../src/check/rule.js';
import { loadTargets } from '../../../src/load/targets.js';
import { atomsOf, parseCell, uncoveredPoint } from '../../../src/model/decision-table.js';
import { overlay } from '../../support/overlay.js';
import { PROCESS_LANGUAGE_RULES, processLanguageFindings } from './process-language-findings.js';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures');
const temp: string[] = [];
afterAll(() => temp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** venue-booking with one more process of its own: the package stays clean but for what that process shows. */
function venueBookingWith(file: string, process: string): string {
  const dir = overlay('packages', { [`venue-booking/processes/${file}`]: process });
  temp.push(dir);
  return join(dir, 'venue-booking');
}

/** The lines of a small process of venue-booking up to its stages: the `data` properties, the fields `start` sets. */
const processHead = (key: string, data: string, set: string) => [
  'apiVersion: taimen.ai/v1',
  'kind: Process',
  `key: ${key}`,
  'spec:',
  '  version: 1',
  `  displayName: ${key}`,
  '  identity: {agent: booking-process}',
  '  owner: [{role: venue-manager}]',
  '  data:',
  '    type: object',
  `    properties: {${data}}`,
  '  start:',
  '    "on": {observation: venue.hall_reported}',
  '    key: string(event.payload.hallCode)',
  `    set: {${set}}`,
];

describe('the processes of our packages', () => {
  it.each([
    ['the bundled example', { cwd: join(FIXTURES, 'example'), install: 'packages.yaml' }],
    ['venue-booking', { cwd: join(FIXTURES, 'packages/venue-booking') }],
  ])('%s: no finding', async (_, options) => {
    expect(await processLanguageFindings(options)).toEqual([]);
  });

  it('fields only the memory projection reads, and that nothing writes, are reported there', async () => {
    const inspection = [
      ...processHead('hall-inspection', 'hallCode: {type: string}, inspector: {type: string}, defects: {type: integer}', 'hallCode: string(event.payload.hallCode)'),
      '  memory:',
      '    case: {key: "\'inspection:\' + data.hallCode", title: "\'Inspected by \' + data.inspector"}',
      '    facts: {defects: data.defects}',
      '  stages:',
      '    - id: inspect',
      '      steps: [{id: inspected, complete: {outcome: inspected}}]',
      '',
    ].join('\n');
    expect(await processLanguageFindings({ cwd: venueBookingWith('hall-inspection.yaml', inspection) })).toEqual([
      'processes/hall-inspection.yaml:17:76 unwritten_data_field data.inspector is read here, but no start.set, correlate.set, set, output.as or export.as writes it',
      'processes/hall-inspection.yaml:18:22 unwritten_data_field data.defects is read here, but no start.set, correlate.set, set, output.as or export.as writes it',
    ]);
  });

  it('a decision step that writes a field spec.data does not declare is reported at the mapping', async () => {
    const staffing = [
      ...processHead('hall-staffing', 'hallCode: {type: string}, seats: {type: integer}', 'hallCode: string(event.payload.hallCode), seats: int(event.payload.seats)'),
      '  decisions:',
      '    - id: crew-size',
      '      hitPolicy: first',
      '      inputs: [{id: seats, expr: data.seats, type: number}]',
      '      outputs: [{id: crew, type: number}]',
      '      rules:',
      '        - {when: {seats: "[0..100)"}, then: {crew: 1}}',
      '        - {when: {seats: "-"}, then: {crew: 3}}',
      '  stages:',
      '    - id: plan',
      '      steps:',
      '        - id: size-crew',
      '          decide: {table: crew-size}',
      '          output: {as: {crewSize: step.result.crew}}',
      '',
    ].join('\n');
    expect(await processLanguageFindings({ cwd: venueBookingWith('hall-staffing.yaml', staffing) })).toEqual([
      'processes/hall-staffing.yaml:29:25 unknown_data_field data has no field crewSize',
    ]);
  });
});

describe('decision table cells, as the core reads them', () => {
  it.each([
    ['-', 'string', { any: true }],
    ['', 'number', { any: true }],
    [null, 'boolean', { any: true }],
    ['web', 'string', { values: ['web'] }],
    ['web, phone', 'string', { values: ['web', 'phone'] }],
    ["'a,b'", 'string', { values: ["'a", "b'"] }],
    ['"web", \'phone\'', 'string', { values: ['web', 'phone'] }],
    // A range written over text is a literal, never an error.
    ['[a..c)', 'string', { values: ['[a..c)'] }],
    [42, 'number', { values: [42] }],
    ['1,2.5', 'number', { values: [1, 2.5] }],
    ['[0..10)', 'number', { range: { low: 0, high: 10, lowOpen: false, highOpen: true } }],
    ['(..0]', 'number', { range: { low: -Infinity, high: 0, lowOpen: true, highOpen: false } }],
    [']1..5[', 'number', { range: { low: 1, high: 5, lowOpen: true, highOpen: true } }],
    ['>= 10', 'number', { range: { low: 10, high: Infinity, lowOpen: false, highOpen: true } }],
    ['<5', 'number', { range: { low: -Infinity, high: 5, lowOpen: true, highOpen: true } }],
    [true, 'boolean', { values: [true] }],
    [' TRUE ', 'boolean', { values: [true] }],
    // Over dates an open end moves by a day.
    ['(2026-01-01..2026-01-05)', 'date', { range: { low: 20455, high: 20457, lowOpen: false, highOpen: false } }],
  ] as const)('%j as %s', (cell, type, parsed) => expect(parseCell(cell, type)).toEqual(parsed));

  it.each([
    ['ten', 'number', "'ten' is not a condition of a number input: 'ten' is not a number"],
    ['yes', 'boolean', "'yes' is not a condition of a boolean input: it is neither true nor false"],
    ['[10..5]', 'number', 'the range holds no value'],
    ['(5..5]', 'number', 'the range holds no value'],
    ['2026-13-45', 'date', 'is not a date'],
    ['2026-01-01T09:00:00', 'timestamp', 'is not a date-time with an offset'],
    ['inf', 'number', 'is not a number'],
  ] as const)('%j as %s: %s', (cell, type, problem) => {
    const parsed = parseCell(cell, type);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });

  it('cuts numbers continuously into the points written, the values beyond them and the intervals between them', () => {
    const domain = atomsOf('number', ['[0..10)', '-', '10']);
    expect(domain.atoms.map((_, i) => domain.describe(i))).toEqual(['< 0', '0', '5', '10', '> 10']);
    expect(domain.matching('[0..10)')).toEqual([1, 2]);
    expect(domain.matching(undefined)).toEqual([0, 1, 2, 3, 4]);
    // <=1 and >=2 leave the gap between them, whatever field the input reads.
    const split = atomsOf('number', ['<=1', '>=2']);
    expect(split.atoms.map((_, i) => split.describe(i))).toEqual(['< 1', '1', '1.5', '2', '> 2']);
  });

  it('skips the gap between two neighbouring days', () => {
    const domain = atomsOf('date', ['2026-01-01', '2026-01-02']);
    expect(domain.atoms.map((_, i) => domain.describe(i))).toEqual(['< 2026-01-01', '2026-01-01', '2026-01-02', '> 2026-01-02']);
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
    expect(() => runRules(workspace, PROCESS_LANGUAGE_RULES, new Set())).not.toThrow();
  });
});
