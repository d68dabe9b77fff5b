/**
 * Editor support: a package file whose first line is the modeline
 *   # yaml-language-server: $schema=<relative path>/schema/v1/object.schema.json
 * gets, from the real yaml-language-server over its stdio protocol, completion of the kinds and of the spec
 * fields of its kind, hover descriptions and diagnostics — the kind dispatch (if/then) and the relative
 * cross-file $refs resolve in the editor as they do in ajv.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspClient } from './lsp-client.js';
import { corpusDocuments, SCHEMA_DIR, schemaFixtures } from './schemas.js';

const OBJECT_SCHEMA = join(SCHEMA_DIR, 'object.schema.json');
const VIEW_SCHEMA = join(SCHEMA_DIR, 'view.schema.json');
const SERVER = fileURLToPath(new URL('../../node_modules/yaml-language-server/bin/yaml-language-server', import.meta.url));
const SETTINGS = { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false } } };

interface CompletionList { items: Array<{ label: string }> }
interface Hover { contents: { value: string } }
interface Diagnostic { message: string; range: { start: { line: number } } }

let dir: string;
let client: LspClient;
let version = 0;

/** Opens `name` with the modeline pointing at the real schema by a relative path, as an author writes it. */
function open(name: string, body: string, schema = OBJECT_SCHEMA): { uri: string; diagnostics: Promise<Diagnostic[]> } {
  const path = join(dir, name);
  const text = `# yaml-language-server: $schema=${relative(dir, schema)}\n${body.replace(/^# yaml-language-server:.*\n/, '')}`;
  writeFileSync(path, text);
  const uri = pathToFileURL(path).href;
  const diagnostics = client.diagnosticsOf(uri) as Promise<unknown> as Promise<Diagnostic[]>;
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: ++version, text } });
  return { uri, diagnostics };
}

async function completionLabels(uri: string, line: number, character: number): Promise<string[]> {
  const list = (await client.request('textDocument/completion', { textDocument: { uri }, position: { line, character } })) as unknown as CompletionList;
  return list.items.map((i) => i.label);
}

async function hoverText(uri: string, line: number, character: number): Promise<string> {
  const hover = (await client.request('textDocument/hover', { textDocument: { uri }, position: { line, character } })) as unknown as Hover | null;
  return hover?.contents.value ?? '';
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'package-sdk-editor-'));
  client = new LspClient(process.execPath, [SERVER, '--stdio'], SETTINGS);
  await client.request('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    capabilities: {
      workspace: { configuration: true },
      textDocument: { completion: { completionItem: { snippetSupport: true } }, hover: { contentFormat: ['markdown', 'plaintext'] } },
    },
  });
  client.notify('initialized', {});
  client.notify('workspace/didChangeConfiguration', { settings: SETTINGS });
}, 60_000);

afterAll(async () => {
  await client?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('yaml-language-server with the object schema', () => {
  // the modeline is line 0 of the opened file, so the cursor lines below count from the body's first line + 1
  it.each([
    {
      what: 'the spec fields of a Process, and only those',
      body: 'apiVersion: taimen.ai/v1\nkind: Process\nkey: refund\nspec:\n  version: 1\n  \n', at: [6, 2],
      offered: ['stages', 'data', 'start', 'displayName', 'decisions', 'memory'], notOffered: ['version', 'lifecycleSchema'],
    },
    {
      what: 'the spec fields of another kind through the same dispatch',
      body: 'apiVersion: taimen.ai/v1\nkind: TaskType\nkey: claim-review\nspec:\n  \n', at: [5, 2],
      offered: ['lifecycleSchema', 'approvalSchema', 'fieldSchema', 'acceptance'], notOffered: ['stages'],
    },
    {
      what: 'the spec of a View through view.schema.json',
      body: 'apiVersion: taimen.ai/v1\nkind: View\nkey: refund-list\nspec:\n  \n', at: [5, 2],
      offered: ['title', 'source', 'layout', 'nav', 'audience'], notOffered: ['stages'],
    },
    {
      what: 'the members of a view block of the kind it names, with view.schema.json in the modeline',
      body: 'apiVersion: taimen.ai/v1\nkind: View\nkey: refund-list\nspec:\n  layout:\n    - block: table\n      \n', at: [7, 6],
      schema: VIEW_SCHEMA, offered: ['columns', 'pageSize', 'sort', 'open'], notOffered: ['chart'],
    },
    {
      what: 'the values of kind',
      body: 'apiVersion: taimen.ai/v1\nkind: \n', at: [2, 6],
      offered: ['Package', 'Installation', 'Process', 'TaskType', 'ConnectionType', 'KnowledgePack', 'View', 'Component'], notOffered: [],
    },
  ])('completes $what', async ({ what, body, at, schema, offered, notOffered }) => {
    const { uri } = open(`${what.replaceAll(/\W+/g, '-')}.yaml`, body, schema);
    const labels = await completionLabels(uri, at[0]!, at[1]!);
    expect(labels).toEqual(expect.arrayContaining(offered));
    for (const label of notOffered) expect(labels).not.toContain(label);
  }, 60_000);

  it('shows the reference description of a field on hover', async () => {
    const { uri } = open('hover.yaml', 'apiVersion: taimen.ai/v1\nkind: Process\nkey: refund\nspec:\n  version: 1\n  calendar: office\n');
    expect(await hoverText(uri, 5, 4)).toContain('Definition version: a published version is immutable');
    expect(await hoverText(uri, 6, 4)).toContain('Default calendar for cal.');
  }, 60_000);

  it('reports an unknown spec field at the field', async () => {
    const { diagnostics } = open('unknown.yaml', 'apiVersion: taimen.ai/v1\nkind: Role\nkey: claims-officer\nspec:\n  name: Claims officer\n  title: Officer\n');
    const found = await diagnostics;
    expect(found.map((d) => [d.range.start.line, d.message])).toEqual([[6, 'Property title is not allowed.']]);
  }, 60_000);
});

describe('yaml-language-server agrees with ajv', () => {
  const valid = [...corpusDocuments(), ...schemaFixtures().filter((f) => f.name.split('/')[1]!.startsWith('valid-'))];
  const invalid = schemaFixtures().filter((f) => f.expected);

  it('opens every valid corpus document and example without a diagnostic', async () => {
    const reported: string[] = [];
    for (const [i, d] of valid.entries()) {
      const found = await open(`valid-${i}.yaml`, d.text, join(SCHEMA_DIR, `${d.schema}.schema.json`)).diagnostics;
      reported.push(...found.map((f) => `${d.name}:${f.range.start.line}: ${f.message}`));
    }
    expect(valid.length).toBeGreaterThan(100);
    expect(reported).toEqual([]);
  }, 300_000);

  it('reports every invalid example', async () => {
    const silent: string[] = [];
    for (const [i, d] of invalid.entries()) {
      const found = await open(`invalid-${i}.yaml`, d.text, join(SCHEMA_DIR, `${d.schema}.schema.json`)).diagnostics;
      if (found.length === 0) silent.push(d.name);
    }
    expect(silent).toEqual([]);
  }, 300_000);
});
