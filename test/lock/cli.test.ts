import { existsSync, readdirSync } from 'node:fs';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkoutsDir, sourceDir } from '../../src/sources/cache.js';
import { lock } from '../../src/lock/lock.js';
import { installation, manifest, runCli, Sandbox } from './repos.js';

// The built CLI as a child process (`npm test` builds first); what a case only prepares runs in process.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox();
});
afterEach(async () => sandbox.dispose());

async function taggedPackages(count: number): Promise<{ key: string; git: string; ref: string }[]> {
  const entries = [];
  for (let i = 0; i < count; i++) {
    const repo = sandbox.repo(`p${i}`, { 'package.yaml': manifest(`p${i}`), 'roles/r.yaml': `apiVersion: taimen.ai/v1\nkind: Role\nkey: r${i}\nspec: {name: R}\n` });
    repo.tag('v1.0.0');
    entries.push({ key: `p${i}`, git: await repo.httpUrl(), ref: 'v1.0.0' });
  }
  return entries;
}

describe('package-sdk lock', () => {
  it('two runs at once on one cache both succeed and write the same lock', async () => {
    const entries = await taggedPackages(3);
    const a = installation(sandbox.path('a'), entries);
    const b = installation(sandbox.path('b'), entries);
    const env = { PACKAGE_SDK_CACHE: sandbox.cache };
    const [first, second] = await Promise.all([runCli(['lock', '--install', a], env), runCli(['lock', '--install', b], env)]);
    expect([first.status, second.status], first.stderr + second.stderr).toEqual([0, 0]);
    const lockA = await readFile(sandbox.path('a', 'packages.lock'), 'utf8');
    expect(await readFile(sandbox.path('b', 'packages.lock'), 'utf8')).toBe(lockA);
    expect(JSON.parse(lockA).packages).toHaveLength(3);
    expect(first.stdout).toContain(`written ${sandbox.path('a', 'packages.lock')}`);
    const source = sourceDir(sandbox.cache, entries[0].git);
    expect(readdirSync(source).sort()).toEqual(['checkouts', 'repo.git']); // no lock file or temporary left
  });

  it('--check exits 1 with a diff when the lock is out of date, 0 when current, and writes nothing', async () => {
    const [entry] = await taggedPackages(1);
    const install = installation(sandbox.path('i'), [entry]);
    const env = { PACKAGE_SDK_CACHE: sandbox.cache };
    const missing = await runCli(['lock', '--install', install, '--check'], env);
    expect(missing.status).toBe(1);
    expect(existsSync(sandbox.path('i', 'packages.lock'))).toBe(false);
    expect((await lock({ install, cacheDir: sandbox.cache })).findings).toEqual([]);
    expect((await runCli(['lock', '--install', install, '--check'], env)).status).toBe(0);
    const lockText = await readFile(sandbox.path('i', 'packages.lock'), 'utf8');
    await writeFile(sandbox.path('i', 'packages.lock'), lockText.replace('"version": "0.1.0"', '"version": "0.0.9"'));
    const outdated = await runCli(['lock', '--install', install, '--check'], env);
    expect(outdated.status).toBe(1);
    expect(outdated.stdout).toContain('-       "version": "0.0.9",\n+       "version": "0.1.0",');
    expect(outdated.stderr).toContain('lock_outdated');
  });

  it('--json prints the report; a refusal exits 1 with the finding', async () => {
    const repo = sandbox.repo('branchy', { 'package.yaml': manifest('branchy') });
    const install = installation(sandbox.path('i'), [{ key: 'branchy', git: await repo.httpUrl(), ref: 'main' }]);
    const result = await runCli(['lock', '--install', install, '--json'], { PACKAGE_SDK_CACHE: sandbox.cache });
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ status: 'failed', findings: [{ code: 'tag_not_found', line: 6 }] });
  });

  it('a missing installation file is a usage error (exit 2)', async () => {
    const result = await runCli(['lock', '--install', sandbox.path('nope.yaml')], { PACKAGE_SDK_CACHE: sandbox.cache });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('nope.yaml');
  });
});

describe('package-sdk cache prune', () => {
  async function lockedCache(): Promise<{ install: string; env: NodeJS.ProcessEnv; source: string }> {
    const entries = await taggedPackages(1);
    const install = installation(sandbox.path('project', 'deploy'), entries);
    expect((await lock({ install, cacheDir: sandbox.cache })).findings).toEqual([]);
    return { install, env: { PACKAGE_SDK_CACHE: sandbox.cache }, source: sourceDir(sandbox.cache, entries[0].git) };
  }

  function checkouts(source: string): string[] {
    const root = checkoutsDir(source);
    if (!existsSync(root)) return [];
    return readdirSync(root).flatMap((commit) => readdirSync(join(root, commit)).flatMap((tree) =>
      readdirSync(join(root, commit, tree)).map((name) => join(root, commit, tree, name))));
  }

  async function age(dir: string): Promise<void> {
    const old = new Date(Date.now() - 2 * 3600 * 1000);
    await utimes(dir, old, old);
  }

  it('keeps what a lock references, keeps recent checkouts, removes the rest', async () => {
    const { env, source } = await lockedCache();
    const [referenced] = checkouts(source);
    await age(referenced);
    const stray = join(referenced, '..', 'f'.repeat(64));
    await import('node:fs/promises').then((fs) => fs.cp(referenced, stray, { recursive: true }));
    const recent = join(referenced, '..', 'e'.repeat(64));
    await import('node:fs/promises').then((fs) => fs.cp(referenced, recent, { recursive: true }));
    await age(stray);
    const result = await runCli(['cache', 'prune', '--json'], env, sandbox.path('project'));
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ removed: 1, keptByLock: 1, recentlyUsed: 1,
      lockFiles: [sandbox.path('project', 'deploy', 'packages.lock')] });
    expect(checkouts(source).sort()).toEqual([recent, referenced].sort());
  });

  it('refuses without lock files, and with an invalid one removes nothing', async () => {
    const { env, source } = await lockedCache();
    const [referenced] = checkouts(source);
    await age(referenced);
    const none = await runCli(['cache', 'prune'], env, sandbox.path('work'));
    expect(none.status).toBe(1);
    expect(none.stderr.replace(/\s*›\s*/g, ' ')).toContain('name lock files (--lock) or clear the whole cache explicitly (--all)');
    await writeFile(sandbox.path('bad.lock'), '{"format": "nope"}');
    const bad = await runCli(['cache', 'prune', '--lock', sandbox.path('bad.lock')], env, sandbox.path('project'));
    expect(bad.status).toBe(1);
    expect(checkouts(source)).toEqual([referenced]);
  });

  it('--all empties the cache, mirrors included', async () => {
    const { env, source } = await lockedCache();
    const result = await runCli(['cache', 'prune', '--all'], env, sandbox.path('project'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('source directories cleared: 1');
    expect(readdirSync(source)).toEqual([]);
  });
});
