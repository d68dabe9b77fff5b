// The packages and documents written by the authors of the formats must load as they are.
import { describe, expect, it } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import { findVariables } from '../../src/model/variables.js';
import { expectLoadsClean, sourceFilesUnder } from '../load/loads-clean.js';
import { corpus, CORPUS } from './corpus.js';

describe('the corpus', () => {
  const files = sourceFilesUnder(CORPUS);

  it('has files to load', () => expect(files.length).toBeGreaterThan(100));

  it.each(files)('%s loads without findings', async (file) => {
    await expectLoadsClean(CORPUS, file);
  });

  it('resolves the claims package from its installation', async () => {
    const workspace = await loadTargets({ cwd: corpus('claims'), install: 'packages.yaml' });
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
    const workspace = await loadTargets({ cwd: corpus(dir) });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(keys);
  });

  it.each([
    ['fixtures/manifest', ['acme-base', 'acme-claims'], ['acme-base', 'acme-claims']],
    ['fixtures/connector', ['sample-feed'], ['sample-feed']],
  ])('loads the packages of %s by directory', async (dir, targets, keys) => {
    const workspace = await loadTargets({ cwd: corpus(dir), packages: targets });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(keys);
  });
});
