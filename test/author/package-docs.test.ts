/** `describe` and the generated README sections, on the claims example and on a fresh copy. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describePackage, envExample } from '../../src/docs/describe.js';
import { BEGIN_MARKER, END_MARKER, packageDocs, withSections } from '../../src/docs/package-readme.js';

const CLAIMS = join(import.meta.dirname, '../../../shared/corpus/claims/claims');
const SETTINGS = join(import.meta.dirname, '../../../shared/corpus/fixtures/settings/packages/claims-intake');

describe('describe', () => {
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

  it('lists settings fields by path with their defaults', async () => {
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

describe('docs package', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'package-sdk-docs-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('regenerates exactly the sections of the claims README', async () => {
    const result = await packageDocs(CLAIMS);
    expect(result.fresh).toBe(true);
    expect(readFileSync(join(CLAIMS, 'README.md'), 'utf8')).toContain(result.sections);
  });

  it('--write replaces only the block between the markers; --check then passes', async () => {
    const copy = join(scratch, 'claims');
    cpSync(CLAIMS, copy, { recursive: true });
    const readme = join(copy, 'README.md');
    const stale = readFileSync(readme, 'utf8').replace('| Role | `claims-manager` | `roles/claims-manager.yaml` |\n', '');
    writeFileSync(readme, stale);
    expect((await packageDocs(copy)).fresh).toBe(false);
    expect(await packageDocs(copy, { write: true })).toMatchObject({ fresh: false, written: true });
    expect(readFileSync(readme, 'utf8')).toBe(readFileSync(join(CLAIMS, 'README.md'), 'utf8'));
    expect(await packageDocs(copy)).toMatchObject({ fresh: true });
  });

  it('appends the block to a README without markers', () => {
    const text = withSections('# Title\n\nMine.\n', `${BEGIN_MARKER}\nx\n${END_MARKER}`);
    expect(text).toBe(`# Title\n\nMine.\n\n${BEGIN_MARKER}\nx\n${END_MARKER}\n`);
  });
});
