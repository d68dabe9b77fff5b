/**
 * What the language server answers, asked of the library in process on a copy of the bundled example: unsaved
 * buffers checked through check's overlay, completion, hover, the package graph's references, quick fixes.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { codeActionsFor } from '../../src/lsp/code-actions.js';
import { completionsAt } from '../../src/lsp/completion.js';
import { dataPathAt, typedDataPath } from '../../src/lsp/data-fields.js';
import { diagnosticOf } from '../../src/lsp/diagnostics.js';
import { hoverAt } from '../../src/lsp/hover.js';
import { dataDefinition, dataReferences, processAt } from '../../src/lsp/navigation.js';
import { mentionsOf, objectNamedAt } from '../../src/lsp/package-graph.js';
import { uriOf } from '../../src/lsp/ranges.js';
import { fieldAt, fieldsAt } from '../../src/lsp/schema-fields.js';
import { WorkspaceCheck } from '../../src/lsp/workspace-check.js';
import { keyBeforeCursor, placeAt } from '../../src/lsp/yaml-place.js';
import { valueAt } from '../../src/json/pointer.js';
import type { Workspace } from '../../src/model/workspace.js';
import { overlay } from '../support/overlay.js';

const root = overlay('example');
const PACKAGE = join(root, 'packages/field-maintenance');
const PROCESS = join(PACKAGE, 'processes/work-order.yaml');
const processText = readFileSync(PROCESS, 'utf8');
let workspace: Workspace;

beforeAll(async () => {
  workspace = (await new WorkspaceCheck(root).run(new Map())).workspace;
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The text with `|` marking the cursor, as completion and hover take it. */
function cursor(marked: string): { text: string; offset: number } {
  return { text: marked.replace('|', ''), offset: marked.indexOf('|') };
}

describe('check with an overlay', () => {
  it('checks the buffer in place of the file, and the file stays as it is', async () => {
    const buffer = processText.replace('calendar: field-service', 'calendar: field-servce');
    const { report } = await check({ cwd: root, overlay: new Map([[PROCESS, buffer]]) });
    expect(report.warnings.map((finding) => [finding.code, finding.file, finding.line, finding.hint])).toEqual([
      ['unknown_calendar', 'packages/field-maintenance/processes/work-order.yaml', 31, "did you mean 'field-service'?"],
    ]);
    expect((await check({ cwd: root })).report.warnings).toEqual([]);
  });
});

describe('completion', () => {
  it('offers the kinds after kind:', () => {
    const labels = completionsAt({ ...cursor('apiVersion: taimen.ai/v1\nkind: |\n'), workspace }).map((item) => item.label);
    expect(labels).toContain('Process');
    expect(labels).toContain('Component');
    expect(labels).toHaveLength(18);
  });

  it('offers the fields of the mapping being written, with the reference\'s text', () => {
    const items = completionsAt({ ...cursor('apiVersion: taimen.ai/v1\nkind: Role\nkey: r\nspec:\n  name: R\n  |\n'), workspace });
    expect(items.map((item) => item.label)).toEqual(fieldsAt(['spec'], { schema: 'object.schema.json', kind: 'Role' }).map((field) => field.name));
    expect(items.find((item) => item.label === 'description')).toMatchObject({ insertText: 'description: ' });
  });

  it('offers the fields of a list item\'s mapping on the line after its first field', () => {
    const text = 'apiVersion: taimen.ai/v1\nkind: Process\nkey: p\nspec:\n  stages:\n    - id: a\n      |\n';
    expect(completionsAt({ ...cursor(text), workspace }).map((item) => item.label)).toEqual(fieldsAt(['spec', 'stages', 0], { schema: 'object.schema.json', kind: 'Process' }).map((field) => field.name));
    expect(fieldsAt(['spec', 'stages', 0], { schema: 'object.schema.json', kind: 'Process' }).map((field) => field.name)).toContain('steps');
  });

  it('offers skills as key@major, and roles by their keys', () => {
    expect(completionsAt({ ...cursor('kind: Process\nspec:\n  stages:\n    - steps:\n        - call:\n            skill: |\n'), workspace }).map((item) => item.label))
      .toEqual(['fault.diagnose@1', 'parts.availability@1', 'parts.order@1']);
    expect(completionsAt({ ...cursor('kind: Process\nspec:\n  owner: [{role: |\n'), workspace }).map((item) => item.label))
      .toEqual(['field-technician', 'maintenance-planner', 'stores-manager']);
  });

  it('offers the values a field\'s schema allows', () => {
    const values = completionsAt({ ...cursor('kind: Process\nspec:\n  decisions:\n    - hitPolicy: |\n'), workspace }).map((item) => item.label);
    expect(values).toEqual((fieldAt(['spec', 'decisions', 0, 'hitPolicy'], { schema: 'object.schema.json', kind: 'Process' })?.values ?? []).map(String));
    expect(values).toContain('first');
  });

  it('reads the key being given a value on the cursor\'s line', () => {
    expect(keyBeforeCursor('    taskType: site-')).toEqual({ key: 'taskType', typed: 'site-' });
    expect(keyBeforeCursor('  owner: [{role: ')).toEqual({ key: 'role', typed: '' });
    expect(keyBeforeCursor('  displayName')).toBeUndefined();
  });
});

describe('hover and the package graph', () => {
  it('summarises the object a value names, and describes a field', () => {
    const role = hoverAt(processText, processText.indexOf('maintenance-planner') + 2, workspace);
    expect(role?.contents).toEqual({ kind: 'markdown', value: expect.stringMatching(/^\*\*Role maintenance-planner\*\* — /) as unknown });
    const field = hoverAt(processText, processText.indexOf('  calendar:') + 3, workspace);
    expect(field?.contents).toEqual({ kind: 'markdown', value: '**calendar** — Default calendar for cal.*' });
    expect(hoverAt(processText, processText.indexOf('# The work order'), workspace)).toBeUndefined();
  });

  it('finds a role named by a field and by a role: string', () => {
    expect(objectNamedAt(['spec', 'owner', 0, 'role'], 'maintenance-planner')).toEqual({ kind: 'Role', key: 'maintenance-planner' });
    expect(objectNamedAt(['spec', 'x'], 'role:stores-manager')).toEqual({ kind: 'Role', key: 'stores-manager' });
    expect(objectNamedAt(['spec', 'displayName'], 'maintenance-planner')).toBeUndefined();
    expect(objectNamedAt(['key'], 'maintenance-planner')).toBeUndefined();
    const mentions = mentionsOf(workspace, { kind: 'Skill', key: 'fault.diagnose' }).map(({ document, pointer }) => [document.file, pointer, valueAt(document.value, pointer)]);
    expect(mentions).toContainEqual(['packages/field-maintenance/processes/work-order.yaml', '/spec/stages/0/steps/0/call/skill', 'fault.diagnose@1']);
    expect(mentions.every(([, , value]) => /^fault\.diagnose@/.test(String(value)))).toBe(true);
  });

  it('places the cursor on a key or a value by the buffer as typed', () => {
    const text = 'spec:\n  calendar: field-service\n';
    expect(placeAt(text, text.indexOf('calendar'))).toMatchObject({ path: ['spec', 'calendar'], part: 'key' });
    expect(placeAt(text, text.indexOf('field'))).toMatchObject({ path: ['spec', 'calendar'], part: 'value', scalar: { value: 'field-service' } });
  });
});

describe('quick fixes', () => {
  const uri = 'file:///p.yaml';
  const text = 'spec:\n  calendar: field-servce\n';
  const finding = { code: 'unknown_calendar', severity: 'error' as const, message: "no Calendar 'field-servce'", file: 'p.yaml', path: '/spec/calendar', line: 2, column: 13, endLine: 2, endColumn: 25 };

  it('takes the suggestion of a "did you mean" hint, or silences the code with the comment check reads', () => {
    const diagnostic = diagnosticOf({ ...finding, hint: "did you mean 'field-service'?" }, text);
    expect(codeActionsFor(uri, text, [diagnostic]).map((action) => [action.title, action.edit?.changes?.[uri]])).toEqual([
      ["Change to 'field-service'", [{ range: { start: { line: 1, character: 12 }, end: { line: 1, character: 24 } }, newText: 'field-service' }]],
      ['Silence unknown_calendar on this line', [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, newText: '  # package-sdk-disable-next-line unknown_calendar\n' }]],
    ]);
  });

  it('offers only the comment when the hint suggests no name, and nothing for another tool\'s diagnostic', () => {
    const diagnostic = diagnosticOf({ ...finding, hint: 'add the calendar' }, text);
    expect(codeActionsFor(uri, text, [diagnostic]).map((action) => action.title)).toEqual(['Silence unknown_calendar on this line']);
    expect(codeActionsFor(uri, text, [{ ...diagnostic, source: 'yaml' }])).toEqual([]);
  });

  it('gives a finding without an end the extent of the word it points at', () => {
    const { endLine: _line, endColumn: _column, ...open } = finding;
    expect(diagnosticOf(open, text).range).toEqual({ start: { line: 1, character: 12 }, end: { line: 1, character: 24 } });
  });
});

describe('data fields of a process', () => {
  const checked = new WorkspaceCheck(root);
  beforeAll(async () => void (await checked.run(new Map())), 60_000);
  const lineOf = (needle: string): string => processText.split('\n').find((line) => line.includes(needle))!;

  it('reads the data path under the cursor, never a field of another variable', () => {
    const line = lineOf('title: "data.workOrderId');
    expect(dataPathAt(line, line.indexOf('data.asset.model') + 'data.as'.length)).toEqual(['asset']);
    expect(dataPathAt(line, line.indexOf('data.asset.model') + 'data.asset.mo'.length)).toEqual(['asset', 'model']);
    const write = lineOf('faultCode: string(event.payload.data.faultCode)');
    expect(dataPathAt(write, write.indexOf('data.faultCode') + 6)).toBeUndefined();
    expect(typedDataPath('    when: data.?asset.')).toEqual({ parent: ['asset'], typed: '' });
    expect(typedDataPath('    when: event.payload.data.')).toBeUndefined();
  });

  it('completes the fields below a data path: declared, then written', () => {
    const process = processAt(checked, PROCESS)!;
    const asset = completionsAt({ text: 'x: data.asset.', offset: 'x: data.asset.'.length, workspace, process });
    expect(asset.map((item) => item.label)).toEqual(['id', 'model', 'serialNumber', 'siteCode', 'depot', 'ownerId', 'ownerName']);
    expect(asset[0]).toMatchObject({ detail: 'string', documentation: 'Machine id in the fleet telematics' });
  });

  it('goes to the declaration of a field in the data schema, and finds its writes and reads', () => {
    const process = processAt(checked, PROCESS)!;
    const schema = uriOf(join(PACKAGE, 'schemas/work-order.yaml'));
    expect(dataDefinition(checked, process, ['asset', 'id'])).toEqual({ uri: schema, range: { start: { line: 12, character: 6 }, end: { line: 12, character: 8 } } });
    const references = dataReferences(checked, process, ['faultCode'], true).map(({ uri, range }) => [uri === schema ? 'schema' : 'process', range.start.line + 1, range.start.character + 1, range.end.character + 1]);
    const reads = [...processText.matchAll(/(?<![\w.])data\.faultCode\b/g)].map((match) => {
      const before = processText.slice(0, match.index);
      const line = before.split('\n').length;
      const column = match.index - before.lastIndexOf('\n');
      return ['process', line, column, column + 'data.faultCode'.length];
    });
    expect(references).toEqual([['schema', 20, 3, 12], ['process', 42, 7, 16], ...reads]);
    expect(reads.length).toBeGreaterThan(4);
  });
});

describe('CEL types on hover', () => {
  const checked = new WorkspaceCheck(root);
  beforeAll(async () => void (await checked.run(new Map())), 60_000);

  it('gives the type of an expression, and of the data path under the cursor', () => {
    const process = processAt(checked, PROCESS)!;
    const title = processText.indexOf("title: \"'Inspect ' + data.asset.id");
    const onPath = processText.indexOf('data.asset.id', title) + 'data.as'.length;
    expect(hoverAt(processText, onPath, workspace, process)?.contents).toEqual({ kind: 'markdown', value: '`data.asset`: `map`\n\nCEL: `string`' });
    const milestone = processText.indexOf('has(data.priority)') + 1;
    expect(hoverAt(processText, milestone, workspace, process)?.contents).toEqual({ kind: 'markdown', value: 'CEL: `bool`' });
  });

  it('types an output mapping by the result of its step', () => {
    const process = processAt(checked, PROCESS)!;
    const at = processText.indexOf('int(step.result.responseHours)') + 1;
    expect(hoverAt(processText, at, workspace, process)?.contents).toEqual({ kind: 'markdown', value: 'CEL: `int`' });
  });
});

describe('completion in expressions', () => {
  const checked = new WorkspaceCheck(root);
  beforeAll(async () => void (await checked.run(new Map())), 60_000);
  const typed = (replacement: string): { text: string; offset: number } => {
    const text = processText.replace('when: has(data.priority)', `when: ${replacement}`);
    return { text, offset: text.indexOf(`when: ${replacement}`) + `when: ${replacement}`.length };
  };

  it('offers the variables of the context and the functions of the profile, with their signatures', () => {
    const items = completionsAt({ ...typed('has(data.priority) && ti'), workspace, process: processAt(checked, PROCESS)! });
    const labels = items.map((item) => item.label);
    expect(labels.slice(0, 9)).toEqual(['cel', 'optional', 'strings', 'data', 'settings', 'event', 'step', 'task', 'stage']);
    expect(items.find((item) => item.label === 'data')).toMatchObject({ detail: 'map' });
    expect(items.find((item) => item.label === 'timestamp')?.detail).toContain('timestamp(string): timestamp');
    expect(labels.some((label) => label.startsWith('taimen_'))).toBe(false);
  });

  it('offers the methods of the receiver\'s type after a dot', () => {
    const strings = completionsAt({ ...typed('data.faultCode.st'), workspace, process: processAt(checked, PROCESS)! }).map((item) => item.label);
    expect(strings).toContain('startsWith');
    expect(strings).toContain('matches');
    expect(strings).not.toContain('getFullYear');
    const times = completionsAt({ ...typed('data.reportedAt.get'), workspace, process: processAt(checked, PROCESS)! }).map((item) => item.label);
    expect(times).toContain('getFullYear');
    expect(times).not.toContain('startsWith');
  });
});

describe('completion of the elements of a process', () => {
  const checked = new WorkspaceCheck(root);
  beforeAll(async () => void (await checked.run(new Map())), 60_000);

  it('offers the decision tables after decide.table, the steps after compensate', () => {
    const process = processAt(checked, PROCESS)!;
    const table = processText.replace('decide: {table: dispatch-priority}', 'decide: {table: ');
    const end = table.indexOf('decide: {table: ') + 'decide: {table: '.length;
    expect(completionsAt({ text: table, offset: end, workspace, process }).map((item) => item.label)).toEqual(['dispatch-priority']);
    const steps = completionsAt({ ...cursor('kind: Process\nspec:\n  stages:\n    - steps:\n        - id: x\n          compensate: |\n'), workspace, process }).map((item) => item.label);
    expect(steps).toContain('diagnose');
    expect(steps).toContain('inspect-site');
    expect(steps).not.toContain('dispatch-priority');
  });

  it('offers a test the steps of the process it names, and the test schema\'s fields', () => {
    const test = cursor('process: work-order\nname: n\nsteps:\n  - complete: {step: |\n');
    const steps = completionsAt({ ...test, workspace }).map((item) => item.label);
    expect(steps).toContain('inspect-site');
    expect(completionsAt({ ...cursor('process: work-order\n|\n'), workspace }).map((item) => item.label)).toContain('steps');
  });
});
