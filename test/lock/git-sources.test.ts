import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkoutDir, sourceDir } from '../../src/sources/cache.js';
import { contentHash } from '../../src/sources/content-hash.js';
import { readLock, type LockEntry } from '../../src/sources/lock-file.js';
import { lock } from '../../src/lock/lock.js';
import { gitSourceResolver } from '../../src/load/source-resolver.js';
import { loadTargets } from '../../src/load/targets.js';
import { redactCredentials, type GitSource } from '../../src/sources/source.js';
import { renderFinding } from '../../src/report/text.js';
import { paintFor } from '../../src/report/paint.js';
import { installation, manifest, Sandbox, writeFiles, type Repo } from './repos.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox();
});
afterEach(async () => sandbox.dispose());

const ROLE = 'apiVersion: taimen.ai/v1\nkind: Role\nkey: r\nspec: {name: R}\n';

/** A repository with the package `demo` in `pkg/` and something else beside it, tagged v1. */
function demoRepo(name = 'demo'): Repo {
  const repo = sandbox.repo(name, { 'pkg/package.yaml': manifest('demo'), 'pkg/roles/r.yaml': ROLE, 'README.md': 'not the package\n' });
  repo.tag('v1');
  return repo;
}

async function lockOf(entries: Parameters<typeof installation>[1]) {
  const install = installation(sandbox.path('install'), entries);
  const report = await lock({ install, cacheDir: sandbox.cache });
  return { install, report, document: await readLock(join(sandbox.path('install'), 'packages.lock')) };
}

describe('lock over smart HTTP', () => {
  it('pins the tag: commit and the contentHash of the package subtree', async () => {
    const repo = demoRepo();
    const url = await repo.httpUrl();
    const { report, document } = await lockOf([{ key: 'demo', git: url, ref: 'v1', path: 'pkg' }]);
    expect(report.findings).toEqual([]);
    expect(report.status).toBe('written');
    expect(document?.packages).toEqual([{
      key: 'demo', version: '0.1.0', source: { git: url, ref: 'v1', path: 'pkg' }, commit: repo.head(),
      contentHash: await contentHash(join(repo.work, 'pkg')),
    }]);
  });

  it('writes the same bytes again, in dependency order, with a trailing newline', async () => {
    const base = sandbox.repo('base', { 'package.yaml': manifest('base') });
    base.tag('v2.0.0');
    const repo = sandbox.repo('app', { 'package.yaml': manifest('app', '1.0.0', ['base']) });
    repo.tag('v1.0.0');
    const entries = [{ key: 'app', git: await repo.httpUrl(), ref: 'v1.0.0' }, { key: 'base', git: await base.httpUrl(), ref: 'v2.0.0' }];
    const { install } = await lockOf(entries);
    const first = await readFile(join(sandbox.path('install'), 'packages.lock'), 'utf8');
    expect(first.endsWith('}\n')).toBe(true);
    expect(JSON.parse(first).packages.map((p: LockEntry) => p.key)).toEqual(['base', 'app']);
    await lock({ install, cacheDir: sandbox.cache });
    expect(await readFile(join(sandbox.path('install'), 'packages.lock'), 'utf8')).toBe(first);
  });

  it('gives a package found through requires its path from the installation file', async () => {
    writeFiles(sandbox.path('install'), { 'packages/base/package.yaml': manifest('base'), 'apps/app/package.yaml': manifest('app', '1.0.0', ['base']) });
    const { report, document } = await lockOf([{ key: 'app', path: 'apps/app' }]);
    expect(report.findings).toEqual([]);
    expect(document?.packages.map((p) => [p.key, p.source])).toEqual([['base', { path: 'packages/base' }], ['app', { path: 'apps/app' }]]);
  });

  it('reads blobs, not a working tree: export-subst and eol attributes change nothing', async () => {
    const repo = sandbox.repo('attrs', {
      'package.yaml': manifest('attrs'), '.gitattributes': '* export-subst\n*.txt text eol=crlf\n', 'notes.txt': 'v: $Format:%H$\n',
    });
    repo.tag('v1');
    const { report, document } = await lockOf([{ key: 'attrs', git: await repo.httpUrl(), ref: 'v1' }]);
    expect(report.findings).toEqual([]);
    expect(document?.packages[0].contentHash).toBe(await contentHash(repo.work));
  });

  it('refuses a branch and a commit id as ref, naming them', async () => {
    const repo = demoRepo();
    const url = await repo.httpUrl();
    const branch = await lockOf([{ key: 'demo', git: url, ref: 'main', path: 'pkg' }]);
    expect(branch.report.status).toBe('failed');
    expect(branch.report.findings).toMatchObject([{ code: 'tag_not_found', severity: 'error', message: expect.stringContaining("no tag 'main'") }]);
    expect(existsSync(join(sandbox.path('install'), 'packages.lock'))).toBe(false);
    const commit = await lockOf([{ key: 'demo', git: url, ref: repo.head(), path: 'pkg' }]);
    expect(commit.report.findings).toMatchObject([{ code: 'tag_not_found', hint: expect.stringContaining('looks like a commit id') }]);
  });

  it('refuses a symlink in the package, but not one outside its subtree', async () => {
    const repo = demoRepo();
    repo.symlink('../README.md', 'pkg/readme.yaml');
    repo.tag('v2');
    const refused = await lockOf([{ key: 'demo', git: await repo.httpUrl(), ref: 'v2', path: 'pkg' }]);
    expect(refused.report.findings).toMatchObject([{ code: 'git_tree_refused', message: expect.stringContaining("'readme.yaml' is a symbolic link") }]);
    const outside = sandbox.repo('outside', { 'pkg/package.yaml': manifest('demo') });
    outside.symlink('pkg/package.yaml', 'link');
    outside.tag('v1');
    const fine = await lockOf([{ key: 'demo', git: await outside.httpUrl(), ref: 'v1', path: 'pkg' }]);
    expect(fine.report.findings).toEqual([]);
  });

  it('refuses names that differ only in case', async () => {
    const repo = sandbox.repo('cases', { 'package.yaml': manifest('cases'), 'Roles/a.yaml': ROLE, 'roles/b.yaml': ROLE });
    repo.tag('v1');
    const { report } = await lockOf([{ key: 'cases', git: await repo.httpUrl(), ref: 'v1' }]);
    expect(report.findings).toMatchObject([{ code: 'git_tree_refused', message: expect.stringContaining('differ only in case') }]);
  });

  it('refuses URLs with credentials and paths with .. before any git call, at the field', async () => {
    const { report } = await lockOf([{ key: 'demo', git: 'https://token@example.com/repo.git', ref: 'v1', path: '../x' }]);
    expect(report.findings.map((f) => [f.code, f.path, f.line])).toEqual([
      ['git_url_invalid', '/spec/packages/0/git', 6], ['git_path_invalid', '/spec/packages/0/path', 6]]);
    expect(existsSync(sandbox.cache)).toBe(false);
  });

  it('never prints the credential of a URL it refuses, in the message or the code frame', async () => {
    const { install, report } = await lockOf([{ key: 'demo', git: 'https://deploy:s3cret-pass@example.com/repo.git', ref: 'v1' }]);
    const [finding] = report.findings;
    expect(finding).toMatchObject({ code: 'git_url_invalid', message: expect.stringContaining('https://deploy:***@example.com/repo.git') });
    const shown = renderFinding(finding!, await readFile(install, 'utf8'), paintFor({ isTTY: false }));
    expect(shown).toContain('https://deploy:***@example.com/repo.git');
    expect(shown).not.toContain('s3cret');
    expect(redactCredentials('git https://ghp_token123@github.com/a/b.git and http://u:p@h/x')).toBe('git https://***@github.com/a/b.git and http://u:***@h/x');
  });

  it('re-pins a force-pushed tag and tells the user it moved', async () => {
    const repo = demoRepo();
    const entries = [{ key: 'demo', git: await repo.httpUrl(), ref: 'v1', path: 'pkg' }];
    const { install, document: before } = await lockOf(entries);
    repo.commit({ 'pkg/roles/s.yaml': ROLE });
    repo.tag('v1');
    const report = await lock({ install, cacheDir: sandbox.cache });
    expect(report.findings).toMatchObject([{ code: 'tag_moved', severity: 'warning' }]);
    const after = await readLock(join(sandbox.path('install'), 'packages.lock'));
    expect(after?.packages[0].commit).toBe(repo.head());
    expect(after?.packages[0].commit).not.toBe(before?.packages[0].commit);
  });

  it('cleans temporaries that a crashed run left, and keeps fresh ones', async () => {
    const repo = demoRepo();
    const url = await repo.httpUrl();
    const source = sourceDir(sandbox.cache, url);
    await mkdir(join(source, '.staging-crashed'), { recursive: true });
    await mkdir(join(source, '.staging-fresh'), { recursive: true });
    const old = new Date(Date.now() - 2 * 3600 * 1000);
    await utimes(join(source, '.staging-crashed'), old, old);
    await lockOf([{ key: 'demo', git: url, ref: 'v1', path: 'pkg' }]);
    expect(readdirSync(source).filter((name) => name.startsWith('.staging'))).toEqual(['.staging-fresh']);
  });

  it('works with file:// sources', async () => {
    const repo = demoRepo();
    const { report, document } = await lockOf([{ key: 'demo', git: repo.fileUrl(), ref: 'v1', path: 'pkg' }]);
    expect(report.findings).toEqual([]);
    expect(document?.packages[0].commit).toBe(repo.head());
  });
});

describe('loading against the lock (gitSourceResolver)', () => {
  async function locked(repo: Repo): Promise<{ source: GitSource; entry: LockEntry }> {
    const source = { key: 'demo', git: await repo.httpUrl(), ref: 'v1', path: 'pkg' };
    const { document } = await lockOf([source]);
    return { source, entry: document!.packages[0] };
  }

  it('plugs into the installation loader: the locked package loads; without a lock, lock_required', async () => {
    const repo = demoRepo();
    const source = { key: 'demo', git: await repo.httpUrl(), ref: 'v1', path: 'pkg' };
    const install = installation(sandbox.path('install'), [source]);
    const resolveGitSource = gitSourceResolver({ cacheDir: sandbox.cache, installFile: install });
    const unlocked = await loadTargets({ install, resolveGitSource });
    expect(unlocked.findings).toMatchObject([{ code: 'lock_required', line: 6 }]);
    await lock({ install, cacheDir: sandbox.cache });
    const workspace = await loadTargets({ install, resolveGitSource });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => [p.key, p.version, p.objects.length])).toEqual([['demo', '0.1.0', 1]]);
  });

  it('requires a lock entry, and the same source as the installation', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    const resolve = gitSourceResolver({ cacheDir: sandbox.cache, installFile: 'packages.yaml' });
    expect((await resolve(source, undefined)).findings).toMatchObject([{ code: 'lock_required', hint: expect.stringContaining('package-sdk lock --install packages.yaml') }]);
    expect((await resolve({ ...source, ref: 'v2' }, entry)).findings).toMatchObject([{ code: 'lock_stale' }]);
  });

  it('gives the locked content, from the cache, even after the tag moved; strict refuses', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    repo.commit({ 'pkg/roles/s.yaml': ROLE });
    repo.tag('v1');
    const relaxed = await gitSourceResolver({ cacheDir: sandbox.cache })(source, entry);
    expect(relaxed.findings).toEqual([]); // the commit is cached: no network, nothing to tell
    expect(await contentHash((relaxed as { dir: string }).dir)).toBe(entry.contentHash);
    const strict = await gitSourceResolver({ cacheDir: sandbox.cache, strict: true })(source, entry);
    expect(strict.findings).toMatchObject([{ code: 'tag_moved', severity: 'error' }]);
    expect('dir' in strict).toBe(false);
  });

  it('tells a moved tag as a warning when it had to fetch, and the lock wins', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    await rm(sandbox.cache, { recursive: true });
    repo.commit({ 'pkg/roles/s.yaml': ROLE });
    repo.tag('v1');
    const result = await gitSourceResolver({ cacheDir: sandbox.cache })(source, entry);
    expect(result.findings).toMatchObject([{ code: 'tag_moved', severity: 'warning', message: expect.stringContaining('the locked content is used') }]);
    expect(await contentHash((result as { dir: string }).dir)).toBe(entry.contentHash);
  });

  it('reports a deleted tag in strict mode', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    repo.deleteTag('v1');
    const strict = await gitSourceResolver({ cacheDir: sandbox.cache, strict: true })(source, entry);
    expect(strict.findings).toMatchObject([{ code: 'tag_moved', message: expect.stringContaining('no longer exists') }]);
  });

  it('refuses content that does not match the lock', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    const tampered = { ...entry, contentHash: `sha256:${'0'.repeat(64)}` };
    const result = await gitSourceResolver({ cacheDir: sandbox.cache })(source, tampered);
    expect(result.findings).toMatchObject([{ code: 'content_mismatch', severity: 'error' }]);
  });

  it('re-extracts a tampered checkout silently', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    const dir = checkoutDir(sourceDir(sandbox.cache, source.git), entry.commit!, 'pkg', entry.contentHash);
    await writeFile(join(dir, 'roles', 'r.yaml'), 'tampered: true\n');
    const result = await gitSourceResolver({ cacheDir: sandbox.cache })(source, entry);
    expect(result.findings).toEqual([]);
    expect(await contentHash(dir)).toBe(entry.contentHash);
  });

  it('works offline from the cache with a warning, and fails clearly without it', async () => {
    const repo = demoRepo();
    const { source, entry } = await locked(repo);
    await sandbox.server!.close();
    const offline = await gitSourceResolver({ cacheDir: sandbox.cache, strict: true })(source, entry);
    expect(offline.findings).toMatchObject([{ code: 'source_unavailable', severity: 'warning' }]);
    expect(await contentHash((offline as { dir: string }).dir)).toBe(entry.contentHash);
    const empty = await gitSourceResolver({ cacheDir: sandbox.path('empty-cache') })(source, entry);
    expect(empty.findings).toMatchObject([{ code: 'source_unavailable', severity: 'error', message: expect.stringContaining('is not in the cache') }]);
  });
});
