/**
 * Editor support: a package file whose first line is the modeline
 *   # yaml-language-server: $schema=<relative path>/schema/v1/object.schema.json
 * gets, from the real yaml-language-server over its stdio protocol, completion of the kinds and of the spec
 * fields of its kind, hover descriptions and diagnostics — the kind dispatch (if/then) and the relative
 * cross-file $refs resolve in the editor as they do in ajv.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDocuments, schemaFixtures } from './schemas.js';
import { reported, VIEW_SCHEMA, YamlEditor } from './yaml-editor.js';

let editor: YamlEditor;

beforeAll(async () => {
  editor = await YamlEditor.start();
}, 60_000);

afterAll(async () => {
  await editor?.stop();
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
  ])('completes $what', async ({ body, at, schema, offered, notOffered }) => {
    const { uri } = editor.open(body, schema);
    const labels = await editor.completionLabels(uri, at[0]!, at[1]!);
    expect(labels).toEqual(expect.arrayContaining(offered));
    for (const label of notOffered) expect(labels).not.toContain(label);
  });

  it('shows the reference description of a field on hover', async () => {
    const { uri } = editor.open('apiVersion: taimen.ai/v1\nkind: Process\nkey: refund\nspec:\n  version: 1\n  calendar: office\n');
    expect(await editor.hoverText(uri, 5, 4)).toContain('Definition version: a published version is immutable');
    expect(await editor.hoverText(uri, 6, 4)).toContain('Default calendar for cal.');
  });

  it('reports an unknown spec field at the field', async () => {
    const found = await editor.open('apiVersion: taimen.ai/v1\nkind: Role\nkey: claims-officer\nspec:\n  name: Claims officer\n  title: Officer\n').diagnostics;
    expect(found.map((d) => [d.range.start.line, d.message])).toEqual([[6, 'Property title is not allowed.']]);
  });
});

describe('yaml-language-server agrees with ajv', () => {
  const valid = [...packageDocuments(), ...schemaFixtures().filter((f) => f.name.split('/')[1]!.startsWith('valid-'))];
  const invalid = schemaFixtures().filter((f) => f.expected);

  it('opens every document of our packages and every valid example without a diagnostic', async () => {
    expect(valid.length).toBeGreaterThan(70);
    expect(reported(valid, await editor.diagnosticsOfAll(valid))).toEqual([]);
  });

  it('reports every invalid example', async () => {
    const diagnostics = await editor.diagnosticsOfAll(invalid);
    expect(invalid.filter((_, i) => diagnostics[i]!.length === 0).map((d) => d.name)).toEqual([]);
  });
});
