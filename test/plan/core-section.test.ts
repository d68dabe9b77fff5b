/**
 * What a core section sends and what makes it unfit to save: the package's files as written (from the check's
 * index or from disk, alike), errors (or problems without a severity) and required migrations.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { blockingProblems, packageFiles } from '../../src/plan/core-section.js';
import type { CoreSection } from '../../src/plan/document.js';
import { loadInstallation } from '../../src/plan/sources.js';
import { tempDir } from '../core/support.js';

const section = (plan: Partial<CoreSection['plan']>): CoreSection =>
  ({ kind: 'core', package: 'claims', planHash: `sha256:${'1'.repeat(64)}`, replayLimit: 50, plan: { planHash: `sha256:${'1'.repeat(64)}`, ...plan } });

describe('blockingProblems', () => {
  it('keeps warnings out, errors and severity-less problems in, with file and line', () => {
    expect(blockingProblems(section({ problems: [
      { code: 'unused_field', severity: 'warning', message: 'w' },
      { code: 'yaml_invalid', severity: 'error', message: 'bad', file: 'processes/claim.yaml', line: 3 },
      { code: 'unknown', message: 'no severity' },
    ] }))).toEqual(['claims: processes/claim.yaml:3: yaml_invalid: bad', 'claims: unknown: no severity']);
  });

  it('refuses instances that need a migration, not those pinned or unaffected', () => {
    expect(blockingProblems(section({ processes: [{ key: 'claim', fromVersion: 1, toVersion: 2, instances: [
      { version: 1, open: 4, fate: 'migrate', migrationRequired: true }, { version: 1, open: 2, fate: 'pin', migrationRequired: false },
    ] }] }))).toEqual(['claims: migration_required: Process/claim v1 has 4 open instances that need a migration']);
    expect(blockingProblems(section({ problems: [], processes: [] }))).toEqual([]);
  });
});

describe('packageFiles', () => {
  it('sends each file as written — a byte-order mark, CRLF line ends — whether its text comes from the index or from disk', async () => {
    const dir = tempDir('plan-files-');
    const cacheDir = tempDir('plan-files-index-');
    try {
      cpSync(join(import.meta.dirname, '../../fixtures/plan/installer'), dir, { recursive: true });
      const role = join(dir, 'frontdesk/roles/receptionist.yaml');
      const office = join(dir, 'frontdesk/workspace-types/office.yaml');
      writeFileSync(role, `\uFEFF${readFileSync(role, 'utf8')}`);
      writeFileSync(office, readFileSync(office, 'utf8').replaceAll('\n', '\r\n'));
      // Past the index's racy window: it trusts the stats of files written before the run (not those of just now).
      await new Promise((settled) => setTimeout(settled, 120));
      useParseCache(new ParseCache(cacheDir, dir));
      const [pkg] = (await loadInstallation(join(dir, 'packages.yaml'))).workspace.packages;
      const values = { FRONTDESK_API: 'https://frontdesk.example.org' };
      const indexed = await packageFiles(pkg!, values);
      useParseCache(undefined);
      const read = await packageFiles(pkg!, values);
      expect(indexed).toEqual(read);
      expect(read.find((file) => file.path === 'roles/receptionist.yaml')?.content.startsWith('\uFEFFapiVersion')).toBe(true);
      expect(read.find((file) => file.path === 'workspace-types/office.yaml')?.content).toContain('\r\n');
    } finally {
      useParseCache(undefined);
      rmSync(dir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
