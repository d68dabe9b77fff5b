/**
 * Plan and apply of a package from git: real repositories served over smart HTTP on loopback, the lock's
 * commit and contentHash held strictly, the local core over HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLock } from '../../src/sources/lock-file.js';
import { lock } from '../../src/lock/lock.js';
import { lockHash } from '../../src/sources/lock-file.js';
import { apply } from '../../src/plan/apply.js';
import { plan } from '../../src/plan/plan.js';
import { startTestCore, type TestCore } from '../core/support.js';
import { installation, Sandbox, type Repo } from '../lock/repos.js';
import { join } from 'node:path';

const MANIFEST = 'apiVersion: taimen.ai/v1\nkind: Package\nkey: greeters\nspec: {version: 1.0.0, displayName: Greeters}\n';
const ROLE = (name: string) => `apiVersion: taimen.ai/v1\nkind: Role\nkey: greeter\nspec: {name: ${name}}\n`;

let sandbox: Sandbox;
let core: TestCore;
let repo: Repo;
let install: string;

beforeEach(async () => {
  sandbox = new Sandbox();
  core = await startTestCore();
  repo = sandbox.repo('greeters', { 'pkg/package.yaml': MANIFEST, 'pkg/roles/greeter.yaml': ROLE('Greeter') });
  repo.tag('v1.0.0');
  install = installation(sandbox.path('install'), [{ key: 'greeters', git: await repo.httpUrl(), ref: 'v1.0.0', path: 'pkg' }]);
});
afterEach(async () => {
  await core.dispose();
  await sandbox.dispose();
});

const options = () => ({ install, server: core.url, processEnv: { CP_TOKEN: core.token }, cacheDir: sandbox.cache, out: join(sandbox.path('install'), 'plan.json') });

describe('a package from git', () => {
  it('is planned from the locked commit, with the lock\'s lockHash, and applied', async () => {
    await expect(plan(options())).rejects.toMatchObject({ code: 'packages_invalid', message: expect.stringContaining('lock_required') });
    expect((await lock({ install, cacheDir: sandbox.cache })).status).toBe('written');
    const result = await plan(options());
    const locked = await readLock(join(sandbox.path('install'), 'packages.lock'));
    expect(result.document.lockHash).toBe(lockHash(locked!.packages));
    expect((result.document.sections[0] as { changes: { kind: string; key: string; operation: string }[] }).changes)
      .toEqual([expect.objectContaining({ kind: 'Role', key: 'greeter', operation: 'create', package: 'greeters' })]);
    await apply({ plan: options().out, processEnv: { CP_TOKEN: core.token }, cacheDir: sandbox.cache, autoApprove: true });
    const role = (await core.call('GET', '/api/v1/roles?limit=100')).body.items[0];
    expect(role).toMatchObject({ slug: 'greeter', name: 'Greeter', package: { key: 'greeters', version: '1.0.0' } });
  });

  it('refuses a tag moved after locking, before asking the core anything, and apply refuses it too', async () => {
    await lock({ install, cacheDir: sandbox.cache });
    await plan(options());
    repo.commit({ 'pkg/roles/greeter.yaml': ROLE('Doorman') });
    repo.tag('v1.0.0');
    await expect(plan({ ...options(), out: join(sandbox.path('install'), 'other.json') })).rejects.toMatchObject({
      code: 'packages_invalid', message: expect.stringMatching(/tag_moved|source_ref_moved/) });
    await expect(apply({ plan: options().out, processEnv: { CP_TOKEN: core.token }, cacheDir: sandbox.cache, autoApprove: true }))
      .rejects.toMatchObject({ code: 'packages_invalid' });
    expect((await core.call('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
  });
});
