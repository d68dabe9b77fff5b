/**
 * A package from a git source lives in the cache; its findings name its files as `key@ref:path` — what the
 * author wrote in the installation and in the package's repository — and not as a path into the cache.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { lock } from '../../src/lock/lock.js';
import { gitSourceResolver } from '../../src/load/source-resolver.js';
import { installation, manifest, Sandbox } from '../lock/repos.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox();
});
afterEach(async () => sandbox.dispose());

describe('files of a git-sourced package in findings', () => {
  it('are shown as key@ref:path in the package', async () => {
    const repo = sandbox.repo('fleet', {
      'pkg/package.yaml': manifest('fleet', '0.2.0'),
      'pkg/roles/driver.yaml': 'apiVersion: taimen.ai/v1\nkind: Role\nkey: driver\nspec: {name: Driver, colour: blue}\n',
    });
    repo.tag('v0.2.0');
    const install = installation(sandbox.path('install'), [{ key: 'fleet', git: await repo.httpUrl(), ref: 'v0.2.0', path: 'pkg' }]);
    expect((await lock({ install, cacheDir: sandbox.cache })).findings).toEqual([]);
    const { report } = await check({ cwd: sandbox.path('install'), install, resolveGitSource: gitSourceResolver({ installFile: install, cacheDir: sandbox.cache }) });
    const shown = report.errors.map((finding) => `${finding.file}:${finding.line}: ${finding.code}`);
    expect(shown).toContain('fleet@v0.2.0:roles/driver.yaml:4: schema_violation');
    expect(report.errors.every((finding) => finding.file.startsWith('fleet@v0.2.0:') && !finding.file.includes('cache'))).toBe(true);
  });
});
