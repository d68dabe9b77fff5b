// Our packages and documents — written as authors write them — load as they are.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import { findVariables } from '../../src/model/variables.js';
import { expectLoadsClean, sourceFilesUnder } from './loads-clean.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
/** Folders of well-formed files: packages, the schema examples (valid or not, all well-formed YAML), CEL fixtures. */
const FOLDERS = ['example', 'packages', 'schema', 'cel', 'load/valid'];

describe('our fixtures', () => {
  const files = FOLDERS.flatMap((folder) => sourceFilesUnder(FIXTURES, join(FIXTURES, folder)));

  it('have files to load', () => expect(files.length).toBeGreaterThan(100));

  it.each(files)('%s loads without findings', async (file) => {
    await expectLoadsClean(FIXTURES, file);
  });

  it('resolve the example package from its installation', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'example'), install: 'packages.yaml' });
    expect(workspace.findings).toEqual([]);
    expect(workspace.installation!.key).toBe('field-maintenance-example');
    expect(workspace.packages.map((p) => [p.key, p.version, p.source])).toEqual([['field-maintenance', '1.2.0', { path: 'packages/field-maintenance' }]]);
    const maintenance = workspace.package('field-maintenance')!;
    expect(maintenance.objects).toHaveLength(28);
    expect(maintenance.tests).toHaveLength(6);
    expect(workspace.lookup('field-maintenance', 'Skill', 'fault.diagnose@1')?.file).toBe('packages/field-maintenance/skills/fault.diagnose.yaml');
    const process = workspace.lookup('field-maintenance', 'Process', 'work-order')!;
    expect(findVariables(process.document).map((v) => [v.name, v.pointer])).toEqual([
      ['MAINTENANCE_WORKSPACE_ID', '/spec/workspaceId'],
      ['PARTS_APPROVAL_LIMIT', '/spec/stages/2/steps/0/when'],
    ]);
  });
});
