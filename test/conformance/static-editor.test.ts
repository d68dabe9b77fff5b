/**
 * yaml-language-server agrees with ajv on the corpus: every valid document the authors of the formats wrote
 * opens in the editor, with the modeline to its public schema, without a diagnostic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reported, YamlEditor } from '../schema/yaml-editor.js';
import { corpusDocuments } from './static-support.js';

let editor: YamlEditor;

beforeAll(async () => {
  editor = await YamlEditor.start();
}, 60_000);

afterAll(async () => {
  await editor?.stop();
});

describe('yaml-language-server on the corpus', () => {
  it('opens every valid corpus document without a diagnostic', async () => {
    const valid = corpusDocuments();
    expect(valid.length).toBeGreaterThan(60);
    expect(reported(valid, await editor.diagnosticsOfAll(valid))).toEqual([]);
  });
});
