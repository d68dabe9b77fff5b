/** The installation as plan loads it: the static check first, packages.lock compared whole, lockHash from disk. */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lock } from '../../src/lock/lock.js';
import { loadInstallation } from '../../src/plan/sources.js';
import { tempDir } from '../core/support.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/plan/installer');
let dir: string;

beforeEach(() => {
  dir = tempDir('plan-sources-');
  cpSync(FIXTURE, dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadInstallation', () => {
  it('computes lockHash with or without a lock file, the same either way', async () => {
    const before = await loadInstallation(join(dir, 'packages.yaml'));
    expect((await lock({ install: join(dir, 'packages.yaml') })).status).toBe('written');
    const after = await loadInstallation(join(dir, 'packages.yaml'));
    expect(after.lockHash).toBe(before.lockHash);
    expect(after.entries).toEqual([{ key: 'frontdesk', version: '1.0.0', source: { path: 'frontdesk' }, contentHash: expect.stringMatching(/^sha256:/) }]);
  });

  it('refuses a package changed after locking (content_mismatch) and a lock with other packages (lock_stale)', async () => {
    await lock({ install: join(dir, 'packages.yaml') });
    const role = join(dir, 'frontdesk/roles/receptionist.yaml');
    writeFileSync(role, `${readFileSync(role, 'utf8')}\n`);
    await expect(loadInstallation(join(dir, 'packages.yaml'))).rejects.toMatchObject({
      code: 'content_mismatch', message: expect.stringContaining("content_mismatch: package 'frontdesk'"), hint: expect.stringContaining('package-sdk lock') });
    const lockFile = join(dir, 'packages.lock');
    const document = JSON.parse(readFileSync(lockFile, 'utf8'));
    document.packages.push({ ...document.packages[0], key: 'gone' });
    writeFileSync(lockFile, JSON.stringify(document));
    await expect(loadInstallation(join(dir, 'packages.yaml'))).rejects.toMatchObject({
      message: expect.stringContaining('lock_stale: lock has packages not in the installation: gone') });
  });

  it('refuses packages that fail the check, and a git source that is not locked', async () => {
    writeFileSync(join(dir, 'packages.yaml'), 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: frontdesk\nspec:\n  packages:\n' +
      '    - {key: frontdesk, path: ./frontdesk}\n    - {key: remote, git: "https://git.example.com/acme/remote.git", ref: v1.0.0}\n');
    const refusal = await loadInstallation(join(dir, 'packages.yaml')).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'packages_invalid' });
    expect((refusal as { problems: string[] }).problems.join('\n')).toMatch(/lock_required: package 'remote' from git \(https:\/\/git\.example\.com\/acme\/remote\.git v1\.0\.0\) is not locked/);
  });
});
