/**
 * `docs schema`: the field reference regenerated from schema/v1 is the committed docs/schema-reference.md,
 * in tables with the columns of the reference page. (Its comparison with the page itself, definition by
 * definition, is part of the conformance suite.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../../src/author/hints.js';
import { renderSchemaReference, schemaReference } from '../../src/docs/schema-reference.js';

describe('docs schema', async () => {
  const sections = await schemaReference(SCHEMA_DIR);

  it('docs/schema-reference.md is the generated text (run package-sdk docs schema after a schema change)', () => {
    const committed = readFileSync(join(import.meta.dirname, '../../docs/schema-reference.md'), 'utf8');
    expect(committed).toBe(renderSchemaReference(sections));
  });

  it('renders tables with the columns the reference shows', () => {
    const text = renderSchemaReference(sections);
    expect(text).toContain('### `packageVariable`\n\n| Field | Type | Required | Description |\n|---|---|---|---|\n| `description` | `string` | yes |  |\n');
    expect(text).toContain('### `installationSpec.retire`\n\nKeys the environment retires (all active versions → deprecated)\n\n| Field | Type | Description |\n');
    expect(text).toContain('Exactly one of: human, approve, call, decide, recall, remember, listen, wait, set, raise, compensate, fork, try, do, suspend, resume, complete.');
    expect(text).toContain('### `semverRange`\n\nVersion range: comma-separated conditions');
    expect(text).toContain('Value: typeKey or object {key, path} or object {key, git, ref, path}.');
  });
});
