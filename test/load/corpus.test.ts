// The packages and documents written by the authors of the formats must load as they are.
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSourceFile } from '../../src/load/source.js';
import { loadTargets } from '../../src/load/targets.js';
import { findVariables } from '../../src/model/variables.js';
import { expectExactScalarMap, stringsOf } from './expect-scalar.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = resolve(ROOT, '../shared/corpus');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.(ya?ml|json)$/.test(entry.name) ? [relative(CORPUS, path)] : [];
  });
}

describe('the corpus', () => {
  const files = filesUnder(CORPUS);

  it('has files to load', () => expect(files.length).toBeGreaterThan(100));

  it.each(files)('%s loads without findings', async (file) => {
    const result = await loadSourceFile(join(CORPUS, file), file);
    expect(result.findings).toEqual([]);
    expect(result.document!.value).not.toBeUndefined();
    // Every string of the file maps back to where it is written, character by character.
    for (const [pointer, value] of stringsOf(result.document!.value)) expectExactScalarMap(result.document!, pointer, value);
  });

  it('resolves the claims package from its installation', async () => {
    const workspace = await loadTargets({ cwd: join(CORPUS, 'claims'), install: 'packages.yaml' });
    expect(workspace.findings).toEqual([]);
    expect(workspace.installation!.key).toBe('claims-example');
    expect(workspace.packages.map((p) => [p.key, p.version, p.source])).toEqual([['claims', '0.1.1', { path: 'claims' }]]);
    const claims = workspace.package('claims')!;
    expect(claims.objects).toHaveLength(15);
    expect(claims.tests).toHaveLength(12);
    expect(workspace.lookup('claims', 'Skill', 'claims.classify@1')?.file).toBe('claims/skills/claims.classify.yaml');
    const process = workspace.lookup('claims', 'Process', 'claim')!;
    expect(findVariables(process.document).map((v) => [v.name, v.pointer])).toEqual([
      ['CLAIMS_WORKSPACE_ID', '/spec/workspaceId'],
      ['CLAIMS_REFUND_THRESHOLD', '/spec/stages/1/steps/1/when'],
    ]);
  });

  it.each([
    ['fixtures/screens', ['invoice-payment']],
    ['fixtures/settings', ['claims-intake']],
    ['fixtures/sla', ['sla-demo']],
    ['fixtures/pyramid', ['review-base', 'review-flow']],
    ['fixtures/handoff', ['intake-demo']],
  ])('loads the packages of %s with their requires', async (dir, keys) => {
    const workspace = await loadTargets({ cwd: join(CORPUS, dir) });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(keys);
  });

  it.each([
    ['fixtures/manifest', ['acme-base', 'acme-claims'], ['acme-base', 'acme-claims']],
    ['fixtures/connector', ['sample-feed'], ['sample-feed']],
  ])('loads the packages of %s by directory', async (dir, targets, keys) => {
    const workspace = await loadTargets({ cwd: join(CORPUS, dir), packages: targets });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(keys);
  });
});
