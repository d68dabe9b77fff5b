import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../src/schema/validators.js';
import { byCodePoint, canonicalJson } from '../../src/json/canonical.js';
import { digest } from '../../src/json/digest.js';
import { sourceDir, treeSegment } from '../../src/sources/cache.js';
import { contentHash, hashedFiles } from '../../src/sources/content-hash.js';
import { lockHash, type LockEntry } from '../../src/sources/lock-file.js';
import { lock } from '../../src/lock/lock.js';
import { PROJECT, Sandbox, writeFiles } from './repos.js';

// The vectors of compat-package-sdk-install.md §7, reproduced exactly.

let sandbox: Sandbox;
afterEach(async () => sandbox?.dispose());

async function hashOf(files: Record<string, string>): Promise<string> {
  sandbox = new Sandbox();
  const dir = sandbox.path('pkg');
  await mkdir(dir, { recursive: true });
  writeFiles(dir, files);
  return contentHash(dir);
}

describe('contentHash', () => {
  it('reproduces the reference canon test (b/x.yaml empty, package.yaml = key: demo)', async () => {
    expect(await hashOf({ 'package.yaml': 'key: demo\n', 'b/x.yaml': '' }))
      .toBe('sha256:58a87959b9de881276c73080e3cea372b3405cf3ce3b0f93b772d4a0d8a880dc');
  });

  it('is the hash of nothing for an empty directory', async () => {
    expect(await hashOf({})).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes a lone package.yaml', async () => {
    expect(await hashOf({ 'package.yaml': 'apiVersion: taimen.ai/v1\n' }))
      .toBe('sha256:c3b7b8c742cc9ee503598877e4acbd7ac49a217dd13360fa09a68c1158340654');
  });

  it('orders paths by code point, takes UTF-8 bytes, and skips .layout/ and .DS_Store', async () => {
    const files = {
      'package.yaml': 'apiVersion: taimen.ai/v1\nkind: Package\nkey: demo\nspec: {version: 0.1.0}\n',
      'roles/r.yaml': 'apiVersion: taimen.ai/v1\nkind: Role\nkey: r\nspec: {name: R}\n',
      'a-b.yaml': 'x: 1\n',
      'a/c.yaml': 'y: é\n',
      '.layout/x.json': '{}',
      '.DS_Store': 'finder',
    };
    expect(await hashOf(files)).toBe('sha256:efd62acd883a8f1b36c382e336ec07483fc7a6d1569a4194111ef65eb3aea197');
    expect(await hashedFiles(sandbox.path('pkg'))).toEqual(['a-b.yaml', 'a/c.yaml', 'package.yaml', 'roles/r.yaml']);
  });

  it('keeps other dot-files, nested .layout and symlinked files; drops litter and symlinked directories', async () => {
    const base = await hashOf({ 'package.yaml': 'key: demo\n' });
    const dir = sandbox.path('pkg');
    writeFiles(dir, { 'Thumbs.db': 'x', 'x.pyc': 'x', '__pycache__/m.py': 'x', 'sub/.git/config': 'x' });
    expect(await contentHash(dir)).toBe(base);
    await mkdir(sandbox.path('elsewhere'));
    await writeFile(sandbox.path('elsewhere', 'f.yaml'), 'z: 1\n');
    await symlink(sandbox.path('elsewhere'), join(dir, 'linked-dir'));
    expect(await contentHash(dir)).toBe(base);
    writeFiles(dir, { '.gitignore': 'x\n', 'x/.layout/y.json': '{}', '.pyc': 'dot-file, no extension' });
    await symlink(sandbox.path('elsewhere', 'f.yaml'), join(dir, 'linked.yaml'));
    expect(await hashedFiles(dir)).toEqual(['.gitignore', '.pyc', 'linked.yaml', 'package.yaml', 'x/.layout/y.json']);
  });

  it('ignores timestamps but not a changed byte or a renamed file', async () => {
    const base = await hashOf({ 'package.yaml': 'key: demo\n', 'a.yaml': 'a: 1\n' });
    const dir = sandbox.path('pkg');
    await utimes(join(dir, 'a.yaml'), new Date(0), new Date(0));
    expect(await contentHash(dir)).toBe(base);
    await writeFile(join(dir, 'package.yaml'), 'key: demo\n\n');
    const appended = await contentHash(dir);
    expect(appended).not.toBe(base);
    writeFiles(dir, { 'package.yaml': 'key: demo\n' });
    await writeFile(join(dir, 'b.yaml'), await readFile(join(dir, 'a.yaml')));
    await import('node:fs/promises').then((fs) => fs.rm(join(dir, 'a.yaml')));
    expect(await contentHash(dir)).not.toBe(base);
  });

  it('sorts a-c.yaml, a/b.yaml, a.yaml, B.yaml, a/_x.yaml as plain strings', () => {
    expect(['a-c.yaml', 'a/b.yaml', 'a.yaml', 'B.yaml', 'a/_x.yaml'].sort(byCodePoint))
      .toEqual(['B.yaml', 'a-c.yaml', 'a.yaml', 'a/_x.yaml', 'a/b.yaml']);
  });

  it('sorts past U+FFFF by code point, as Python does, where UTF-16 order puts those characters first', () => {
    const keys = ['\u{1F600}', '\uFF61', 'z', '\u{10000}', '\uE000'];
    expect([...keys].sort(byCodePoint)).toEqual(['z', '\uE000', '\uFF61', '\u{10000}', '\u{1F600}']);
    expect(canonicalJson(Object.fromEntries(keys.map((key) => [key, 1])))).toBe('{"z": 1, "\uE000": 1, "\uFF61": 1, "\u{10000}": 1, "\u{1F600}": 1}');
  });
});

describe('lockHash', () => {
  it('is digest([]) for an installation with no packages', () => {
    expect(lockHash([])).toBe('sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });

  it('is the digest of the entries as lock writes them, sorted by key', () => {
    const entries: LockEntry[] = [
      { key: 'fleet-sync', version: '2.0.1', source: { git: 'https://git.example.com/fleet/sync.git', ref: 'v2.0.1', path: 'pkg' },
        commit: '89abcdef0123456789abcdef0123456789abcdef', contentHash: `sha256:${'b'.repeat(64)}` },
      { key: 'alarms', version: '1.4.0', source: { path: 'packages/alarms' }, contentHash: `sha256:${'a'.repeat(64)}` },
    ];
    // Python's json.dumps(sort_keys=True) of the sorted entries, written out by hand.
    const canonical = `[{"contentHash": "sha256:${'a'.repeat(64)}", "key": "alarms", "source": {"path": "packages/alarms"}, "version": "1.4.0"}, ` +
      `{"commit": "89abcdef0123456789abcdef0123456789abcdef", "contentHash": "sha256:${'b'.repeat(64)}", "key": "fleet-sync", ` +
      '"source": {"git": "https://git.example.com/fleet/sync.git", "path": "pkg", "ref": "v2.0.1"}, "version": "2.0.1"}]';
    expect(lockHash(entries)).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`);
    expect(lockHash([...entries].reverse())).toBe(lockHash(entries));
  });
});

describe('cache names', () => {
  it('names the source directory by sha256 of the URL as written', () => {
    expect(relative('/c', sourceDir('/c', 'https://git.example.com/acme/extra')))
      .toBe('git/2e7908aa953f991b18e81375368bae29457c431117b6f8aa1b979ac9407aacbb');
  });

  it('names the checkout tree by the first 16 hex of sha256(subdir)', () => {
    expect(treeSegment('pkg')).toBe('e0ce1a7f3f76d7bf');
    expect(treeSegment(undefined)).toBe('e3b0c44298fc1c14');
  });
});

describe('canonical JSON', () => {
  it('is Python json.dumps(sort_keys=True, ensure_ascii=False), floats kept', () => {
    const value = { b: 1, a: 'é\n/"\\\t\u0001', c: [1, 2.5, true, null, 1e16, 1e-7, 1e20], Z: {}, é: 1, ä: 2 };
    const floats = new Set(['/b', '/c/4']);
    const text = canonicalJson(value, floats);
    expect(text).toBe('{"Z": {}, "a": "é\\n/\\"\\\\\\t\\u0001", "b": 1.0, "c": [1, 2.5, true, null, 1e+16, 1e-07, ' +
      '100000000000000000000], "ä": 2, "é": 1}');
    expect(digest(value, floats)).toBe('sha256:8463328c9d90d13c891b5350fab474786fdcb7dd0db6f9239066e09124464168');
  });

  it('reproduces the variablesHash vectors', () => {
    expect(digest({ packages: {}, installation: {} }))
      .toBe('sha256:f8172d94072561b185ff9517720beba6857162af369803308a6a8f7f05608a11');
    const uuid = '11111111-2222-4333-8444-555555555555';
    expect(digest({ packages: { 'acme-claims': { CLAIMS_WORKSPACE_ID: uuid, HELPDESK_URL: 'https://helpdesk.example.com/api' } },
      installation: { CLAIMS_WORKSPACE_ID: uuid } }))
      .toBe('sha256:f1884b330b709d6b11f3c7ed1251f313eb094f9a33b5f7d9bd12c6650b845350');
  });

  it('reproduces the planHash of the minimal plan', () => {
    const plan = {
      format: 'package-sdk.plan/v1', server: 'https://platform.example.com', engines: { 'control-plane': '0.9.0' },
      createdAt: '2026-09-30T10:00:00+00:00', installation: 'acme-prod', install: 'packages.yaml',
      lockHash: lockHash([]), variablesHash: digest({ packages: {}, installation: {} }), overwriteConsole: false,
      sections: [{ kind: 'catalog', changes: [] }, { kind: 'knowledge', register: [], enable: [] },
        { kind: 'notification-rules', changes: [] }, { kind: 'retire', items: [] }],
    };
    expect(digest(plan)).toBe('sha256:f8a061fee61b62f7b0fdf7853cea2733245c2619355529c6d9c91345beac15e2');
  });

  it('prints floats as Python repr does (integral ones only when marked as written as floats)', () => {
    expect(canonicalJson([0.5, -2.5, 1e-5, 0.0001, 123456789.125, 1.5e300, -1e-300], new Set(['/5']))).toBe(
      '[0.5, -2.5, 1e-05, 0.0001, 123456789.125, 1.5e+300, -1e-300]');
  });
});

describe('the lock of the bundled example', () => {
  it('is valid against schema/v1/lock.schema.json', async () => {
    sandbox = new Sandbox();
    const example = join(PROJECT, 'fixtures/example/packages/field-maintenance');
    const install = sandbox.path('packages.yaml');
    await writeFile(install, `apiVersion: taimen.ai/v1\nkind: Installation\nkey: example\nspec:\n  packages:\n` +
      `    - {key: field-maintenance, path: ${relative(sandbox.root, example)}}\n`);
    const report = await lock({ install, cacheDir: sandbox.cache });
    expect(report.findings).toEqual([]);
    const written = JSON.parse(await readFile(sandbox.path('packages.lock'), 'utf8'));
    const validate = await validatorFor('lock');
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
    expect(written.packages).toEqual([{ key: 'field-maintenance', version: '1.2.0', source: { path: relative(sandbox.root, example) },
      contentHash: await contentHash(example) }]);
  });
});
