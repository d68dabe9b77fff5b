/** `describe` and the generated README sections on the claims example of the corpus, whose README the authors keep. */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describePackage, envExample } from '../../src/docs/describe.js';
import { DIAGRAMS_BEGIN_MARKER, packageDocs, withDiagrams } from '../../src/docs/package-readme.js';
import { expectWriteRestores } from '../author/readme-docs.js';
import { corpus } from './corpus.js';

const CLAIMS = corpus('claims/claims');
const SETTINGS = corpus('fixtures/settings/packages/claims-intake');

describe('describe on the corpus', () => {
  it('lists what an installation of the claims package needs', async () => {
    const claims = await describePackage(CLAIMS);
    expect(claims.variables).toEqual([
      { name: 'CLAIMS_REFUND_THRESHOLD', kind: 'integer', required: false, default: '500', description: 'A refund above this amount needs the approval of a claims manager' },
      { name: 'CLAIMS_WORKSPACE_ID', kind: 'workspace', required: true, description: 'Root workspace of the claims — the cases, their tasks and the observations of the helpdesk' },
      { name: 'HELPDESK_URL', kind: 'url', required: true, example: 'http://helpdesk:8080', description: 'API of the helpdesk the observer polls (the demo helpdesk of the example, or your own)' },
    ]);
    expect(claims.engines).toEqual({ 'control-plane': '>=0.10,<0.11' });
    expect(claims.ontologies).toEqual(['default@1', 'claims@1']);
    expect(claims.requires).toEqual([]);
    expect(claims.agents.find((agent) => agent.key === 'claims-skills')).toEqual({ key: 'claims-skills', executor: 'skills', runs: true, nodeLabels: ['helpdesk-access'], secrets: ['helpdesk-token'] });
    expect(claims.agents.find((agent) => agent.key === 'claims-process')).toEqual({ key: 'claims-process', runs: false, nodeLabels: [], secrets: [] });
  });

  it('lists the settings fields of claims-intake by path with their defaults', async () => {
    const intake = await describePackage(SETTINGS);
    expect(intake.settings.length).toBeGreaterThan(0);
    for (const setting of intake.settings) expect(setting.path).toMatch(/^[a-z][A-Za-z0-9_]*(\.[a-z][A-Za-z0-9_]*)*$/);
  });

  it('prints a .env template: required variables to fill in, optional ones commented with their default', async () => {
    const text = envExample(await describePackage(CLAIMS));
    expect(text).toContain('\nCLAIMS_WORKSPACE_ID=\n');
    expect(text).toContain('\n# CLAIMS_REFUND_THRESHOLD=500\n');
    expect(text).toContain('# example: http://helpdesk:8080\nHELPDESK_URL=\n');
  });
});

describe('docs package on the corpus', () => {
  // The authors' README holds the sections the Python package-sdk generates; ours add a block of process
  // diagrams after them (docs/graph.md), so the claims README is stale by exactly that block.
  it('regenerates exactly the sections of the claims README, and adds only the diagrams block after them', async () => {
    const result = await packageDocs(CLAIMS);
    const readme = readFileSync(join(CLAIMS, 'README.md'), 'utf8');
    expect(readme).toContain(result.sections);
    expect(readme).not.toContain(DIAGRAMS_BEGIN_MARKER);
    expect(result.fresh).toBe(false);
    expect(result.diagrams).toContain('```mermaid\nflowchart TB\n');
    expect(withDiagrams(readme, result.diagrams).replace(`\n\n${result.diagrams}`, '')).toBe(readme);
  });

  it('--write on a copy of claims replaces only the blocks between the markers; --check then passes', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'package-sdk-claims-docs-'));
    try {
      const copy = join(scratch, 'claims');
      cpSync(CLAIMS, copy, { recursive: true });
      await packageDocs(copy, { write: true });
      await expectWriteRestores(copy, '| Role | `claims-manager` | `roles/claims-manager.yaml` |\n');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
