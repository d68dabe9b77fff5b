/**
 * `package-sdk lsp` as an editor drives it: the built CLI over stdio, spoken to by vscode-languageserver-protocol's
 * own client, on a copy of the bundled example — open, a typo typed, its diagnostic, completion, hover, definition,
 * references, the quick fix taken, and a rename of an object key.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic, Hover, Location, TextDocumentEdit, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { overlay } from '../support/overlay.js';
import { startClient, uriIn, type LspClient } from './client.js';

const root = overlay('example');
const PACKAGE = 'packages/field-maintenance';
const PROCESS = `${PACKAGE}/processes/work-order.yaml`;
const uri = uriIn(root, PROCESS);
const original = readFileSync(join(root, PROCESS), 'utf8');
const lines = original.split('\n');
/** Line and column (0-based) of `text` in the process file, on the line that holds `line`. */
function at(line: string, text = line, offset = 0): { line: number; character: number } {
  const index = lines.findIndex((candidate) => candidate.includes(line));
  return { line: index, character: lines[index]!.indexOf(text) + offset };
}
const TASK_TYPE = at('taskType: site-inspection', 'site-inspection');
const CALENDAR = at('  calendar: field-service', 'field-service', 3);

let client: LspClient;
beforeAll(async () => {
  client = startClient(root);
  await client.connection.sendRequest('initialize', { processId: process.pid, rootUri: uriIn(root, ''), capabilities: {} });
  await client.connection.sendNotification('initialized', {});
}, 60_000);
afterAll(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
});

const request = <T>(method: string, params: object): Promise<T> => client.connection.sendRequest(method, { textDocument: { uri }, ...params });
const typo: Diagnostic = {
  range: { start: TASK_TYPE, end: { line: TASK_TYPE.line, character: TASK_TYPE.character + 'site-inspecton'.length } },
  severity: 1,
  code: 'unknown_task_type',
  source: 'package-sdk',
  message: "step inspect-site: human.taskType 'site-inspecton' — no such TaskType in package field-maintenance or its requires (did you mean 'site-inspection'?)",
  data: { path: '/spec/stages/1/steps/0/human/taskType', hint: "did you mean 'site-inspection'?" },
};

describe('package-sdk lsp', () => {
  it('reports check\'s finding of an unsaved edit at the exact place, with its code and hint', async () => {
    await client.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: original } });
    const published = client.diagnostics(uri, (diagnostics) => diagnostics.length > 0);
    const range = { start: { ...TASK_TYPE, character: TASK_TYPE.character + 'site-inspect'.length }, end: { ...TASK_TYPE, character: TASK_TYPE.character + 'site-inspecti'.length } };
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ range, text: '' }] });
    expect(await published).toEqual([typo]);
    expect(readFileSync(join(root, PROCESS), 'utf8')).toBe(original); // the buffer, not the file
  });

  it('completes a task type with the keys of the package\'s task types', async () => {
    const items = await request<{ label: string; detail: string }[]>('textDocument/completion', { position: TASK_TYPE });
    expect(items.map((item) => [item.label, item.detail])).toEqual([
      ['parts-request', `TaskType · ${PACKAGE}/task-types/parts-request.yaml`],
      ['preventive-service', `TaskType · ${PACKAGE}/task-types/preventive-service.yaml`],
      ['repair-work', `TaskType · ${PACKAGE}/task-types/repair-work.yaml`],
      ['site-inspection', `TaskType · ${PACKAGE}/task-types/site-inspection.yaml`],
    ]);
  });

  it('hovers a referenced object with its summary, a field with the reference\'s description, an expression with its CEL type', async () => {
    expect(await request<Hover>('textDocument/hover', { position: CALENDAR })).toEqual({
      contents: { kind: 'markdown', value: `**Calendar field-service** — Field service (Germany)\n\n\`${PACKAGE}/calendars/field-service.yaml\`` },
    });
    expect(await request<Hover>('textDocument/hover', { position: at('  calendar: field-service', 'calendar', 2) })).toEqual({
      contents: { kind: 'markdown', value: '**calendar** — Default calendar for cal.*' },
    });
    expect(await request<Hover>('textDocument/hover', { position: at('when: has(data.priority)', 'data.priority', 'data.pr'.length) })).toEqual({
      contents: { kind: 'markdown', value: '`data.priority`: `string`\n\nCEL: `bool`' },
    });
  });

  it('goes to the definition of a referenced object, and finds every place that names it', async () => {
    const definition: Location = { uri: uriIn(root, `${PACKAGE}/calendars/field-service.yaml`), range: { start: { line: 6, character: 5 }, end: { line: 6, character: 18 } } };
    expect(await request<Location>('textDocument/definition', { position: CALENDAR })).toEqual(definition);
    const references = await request<Location[]>('textDocument/references', { position: CALENDAR, context: { includeDeclaration: true } });
    expect(references).toEqual([definition, { uri, range: { start: { ...CALENDAR, character: CALENDAR.character - 3 }, end: { ...CALENDAR, character: CALENDAR.character - 3 + 'field-service'.length } } }]);
  });

  it('goes from a data field read in an expression to its declaration in the data schema', async () => {
    const position = at('input: {assetId: data.asset.id', 'data.asset.id', 'data.asset.i'.length);
    expect(await request<Location>('textDocument/definition', { position })).toEqual({
      uri: uriIn(root, `${PACKAGE}/schemas/work-order.yaml`), range: { start: { line: 12, character: 6 }, end: { line: 12, character: 8 } },
    });
  });

  it('offers the "did you mean" fix and the suppression comment; the fix clears the diagnostic', async () => {
    const actions = await request<CodeAction[]>('textDocument/codeAction', { range: typo.range, context: { diagnostics: [typo] } });
    expect(actions.map((action) => [action.title, action.edit?.changes?.[uri]])).toEqual([
      ["Change to 'site-inspection'", [{ range: typo.range, newText: 'site-inspection' }]],
      ['Silence unknown_task_type on this line', [{ range: { start: { line: TASK_TYPE.line, character: 0 }, end: { line: TASK_TYPE.line, character: 0 } }, newText: '            # package-sdk-disable-next-line unknown_task_type\n' }]],
    ]);
    const cleared = client.diagnostics(uri, (diagnostics) => diagnostics.length === 0);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: actions[0]!.edit!.changes![uri]!.map(({ range, newText }) => ({ range, text: newText })) });
    expect(await cleared).toEqual([]);
  });

  it('renames an object key as edit rename does: the key, its file, every reference and the manifest\'s renames entry', async () => {
    expect(await request('textDocument/prepareRename', { position: CALENDAR })).toEqual({
      range: { start: { ...CALENDAR, character: CALENDAR.character - 3 }, end: { ...CALENDAR, character: CALENDAR.character - 3 + 'field-service'.length } },
      placeholder: 'field-service',
    });
    const edit = await request<WorkspaceEdit>('textDocument/rename', { position: CALENDAR, newName: 'site-calendar' });
    const changes = edit.documentChanges!;
    const texts = changes.filter((change): change is TextDocumentEdit => 'textDocument' in change);
    const file = (path: string): string => readFileSync(join(root, path), 'utf8');
    const newText = (path: string): string | undefined => (texts.find((change) => change.textDocument.uri === uriIn(root, path))?.edits[0] as TextEdit | undefined)?.newText;
    expect(texts.map((change) => change.textDocument.uri)).toEqual([`${PACKAGE}/package.yaml`, `${PACKAGE}/calendars/field-service.yaml`, PROCESS].map((path) => uriIn(root, path)));
    expect(newText(`${PACKAGE}/calendars/field-service.yaml`)).toBe(file(`${PACKAGE}/calendars/field-service.yaml`).replace('key: field-service', 'key: site-calendar'));
    expect(newText(PROCESS)).toBe(original.replace('  calendar: field-service', '  calendar: site-calendar'));
    expect(newText(`${PACKAGE}/package.yaml`)).toBe(`${file(`${PACKAGE}/package.yaml`)}  renames:\n    - kind: Calendar\n      from: field-service\n      to: site-calendar\n`);
    expect(changes.filter((change) => 'kind' in change)).toEqual([
      { kind: 'rename', oldUri: uriIn(root, `${PACKAGE}/calendars/field-service.yaml`), newUri: uriIn(root, `${PACKAGE}/calendars/site-calendar.yaml`) },
    ]);
  });

  it('refuses a rename that would rewrite an unsaved buffer, naming the file to save', async () => {
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 4 }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# unsaved\n' }] });
    const moved = { line: CALENDAR.line + 1, character: CALENDAR.character };
    await expect(request('textDocument/rename', { position: moved, newName: 'site-calendar' })).rejects.toThrow(
      `save ${PROCESS} before renaming: the rename rewrites the files as they are on disk`,
    );
  });

  it('leaves a buffer of no file alone, and keeps serving the others', async () => {
    const untitled = 'untitled:Untitled-1';
    await client.connection.sendNotification('textDocument/didOpen', { textDocument: { uri: untitled, languageId: 'yaml', version: 1, text: 'kind: Role\n' } });
    expect(await client.connection.sendRequest('textDocument/completion', { textDocument: { uri: untitled }, position: { line: 0, character: 6 } })).toEqual([]);
    expect(await request<Hover>('textDocument/hover', { position: { line: CALENDAR.line + 1, character: CALENDAR.character } })).toMatchObject({ contents: { value: expect.stringContaining('**Calendar field-service**') as unknown } });
  });

  it('reads a file changed on disk since the last check (a checkout, another tool\'s write) anew', async () => {
    const agent = `${PACKAGE}/agents/maintenance-process.yaml`;
    const agentUri = uriIn(root, agent);
    const written = readFileSync(join(root, agent), 'utf8');
    writeFileSync(join(root, agent), written.replace(/^kind: Agent$/m, 'kind: Agnet'));
    const published = client.diagnostics(agentUri, (diagnostics) => diagnostics.length > 0);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 5 }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#\n' }] });
    const none = new Promise<Diagnostic[]>((resolve) => setTimeout(() => resolve([]), 10_000).unref()); // a check that kept the first stats finds nothing there
    const found = await Promise.race([published, none]);
    expect(found.map((diagnostic) => [diagnostic.code, diagnostic.range.start.line])).toEqual([['unknown_kind', written.split('\n').indexOf('kind: Agent')]]);
  });
});
