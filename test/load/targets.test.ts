import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import type { Finding } from '../../src/model/finding.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'fixtures/load');
const summary = (f: Finding) => ({ code: f.code, file: f.file, line: f.line, column: f.column, path: f.path });

describe('an installation', () => {
  it('pulls in requires in dependency order and records each source', async () => {
    const workspace = await loadTargets({ cwd: ROOT, install: 'fixtures/load/valid/packages.yaml' });
    expect(workspace.findings).toEqual([]);
    expect(workspace.installation).toMatchObject({ key: 'load-valid', file: 'fixtures/load/valid/packages.yaml' });
    expect(workspace.packages.map((p) => [p.key, p.source])).toEqual([
      ['base', { path: 'packages/base' }],
      ['flow', { path: 'packages/flow' }],
    ]);
  });

  it('looks for a key in packagesDir, packages/, its own directory, then ./packages', async () => {
    const cwd = join(FIXTURES, 'install/search-order');
    const workspace = await loadTargets({ cwd, install: 'deploy/packages.yaml' });
    expect(workspace.packages.map((p) => [p.key, p.version, p.source])).toEqual([
      ['pick', '1.0.0', { path: '../shelf/pick' }],
      ['local', '1.0.0', { path: 'packages/local' }],
      ['sibling', '1.0.0', { path: 'sibling' }],
      ['from-cwd', '1.0.0', { path: '../packages/from-cwd' }],
    ]);
    expect(workspace.findings.map(summary)).toEqual([
      { code: 'package_not_found', file: 'deploy/packages.yaml', line: 11, column: 7, path: '/spec/packages/4' },
    ]);
    expect(workspace.findings[0]!.message).toBe("package 'nowhere' not found in shelf, deploy/packages, deploy, packages");
  });

  it('takes {key, path} entries relative to the file and checks the key and the directory', async () => {
    const cwd = join(FIXTURES, 'install/path-entry');
    const workspace = await loadTargets({ cwd, install: 'packages.yaml' });
    expect(workspace.packages.map((p) => [p.key, p.source])).toEqual([
      ['tool', { path: 'somewhere/tool' }],
      ['actual', { path: 'somewhere/actual' }],
    ]);
    expect(workspace.findings.map((f) => [f.code, f.file, f.line, f.column, f.message])).toEqual([
      ['package_not_found', 'packages.yaml', 8, 25, "package 'gone': no package.yaml in somewhere/gone"],
      ['package_key_mismatch', 'somewhere/actual/package.yaml', 3, 6, "key 'actual' does not match the key 'expected' the installation gives this package"],
    ]);
  });

  it('needs packages.lock for a git source', async () => {
    const cwd = join(FIXTURES, 'install/git');
    const workspace = await loadTargets({ cwd, install: 'packages.yaml' });
    expect(workspace.packages).toEqual([]);
    expect(workspace.findings.map(summary)).toEqual([
      { code: 'lock_required', file: 'packages.yaml', line: 6, column: 7, path: '/spec/packages/0' },
    ]);
    expect(workspace.findings[0]!.hint).toBe('pin the sources: package-sdk lock --install packages.yaml');
  });

  it('hands git sources and their lock entries to the resolver it is given', async () => {
    const seen: unknown[] = [];
    const workspace = await loadTargets({
      cwd: join(FIXTURES, 'install/git'),
      install: 'packages.yaml',
      resolveGitSource: async (source, lockEntry) => {
        seen.push([source, lockEntry]);
        return { dir: join(FIXTURES, 'install/path-entry/somewhere/tool'), findings: [] };
      },
    });
    expect(seen).toEqual([[{ key: 'remote', git: 'https://git.example.com/acme/remote.git', ref: 'v1.0.0' }, undefined]]);
    // The resolved directory holds package 'tool', not 'remote': the installation's key is checked.
    expect(workspace.findings.map((f) => f.code)).toEqual(['package_key_mismatch']);
    expect(workspace.packages[0]!.source).toEqual({ git: 'https://git.example.com/acme/remote.git', ref: 'v1.0.0' });
  });

  it('refuses a file that is not an Installation', async () => {
    const workspace = await loadTargets({ cwd: ROOT, install: 'fixtures/load/valid/packages/base/package.yaml' });
    expect(workspace.findings.map(summary)).toEqual([
      { code: 'installation_invalid', file: 'fixtures/load/valid/packages/base/package.yaml', line: 2, column: 7, path: '/kind' },
    ]);
  });

  it('reports a missing installation file', async () => {
    const workspace = await loadTargets({ cwd: ROOT, install: 'fixtures/load/nope.yaml' });
    expect(workspace.findings.map((f) => [f.code, f.file, f.message])).toEqual([['read_failed', 'fixtures/load/nope.yaml', 'cannot read the file: no such file']]);
  });
});

describe('requires', () => {
  it('reports a cycle where the requirement closing it is written', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'cycle') });
    expect(workspace.findings.map(summary)).toEqual([
      { code: 'requires_cycle', file: 'packages/b/package.yaml', line: 8, column: 7, path: '/spec/requires/0' },
    ]);
    expect(workspace.findings[0]!.message).toBe('requires cycle: a → b → a');
    expect(workspace.packages.map((p) => p.key)).toEqual(['b', 'a']);
  });

  it('reports a missing requirement and who requires it', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'missing') });
    expect(workspace.findings.map(summary)).toEqual([
      { code: 'package_not_found', file: 'packages/lonely/package.yaml', line: 7, column: 14, path: '/spec/requires/0' },
    ]);
    expect(workspace.findings[0]!.message).toBe("package 'ghost' not found in packages (required by lonely)");
  });
});

describe('targets without an installation', () => {
  it('loads every ./packages/*/package.yaml when none is named', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'valid') });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(['base', 'flow']);
    expect(workspace.installation).toBeUndefined();
  });

  it('loads the current directory when it is a package, its requires next to it', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'valid/packages/flow') });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => [p.key, p.manifest.file])).toEqual([
      ['base', '../base/package.yaml'],
      ['flow', 'package.yaml'],
    ]);
  });

  it('loads --package by directory and by key', async () => {
    const byDir = await loadTargets({ cwd: ROOT, packages: ['fixtures/load/valid/packages/flow'] });
    expect(byDir.findings).toEqual([]);
    expect(byDir.packages.map((p) => p.key)).toEqual(['base', 'flow']);
    const byKey = await loadTargets({ cwd: join(FIXTURES, 'valid'), packages: ['base'] });
    expect(byKey.packages.map((p) => p.key)).toEqual(['base']);
  });

  it('reports a --package key found nowhere', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'valid'), packages: ['ghost'] });
    expect(workspace.findings.map((f) => [f.code, f.file, f.message])).toEqual([
      ['package_not_found', 'ghost', "package 'ghost' not found in packages"],
    ]);
  });

  it('loads each package once when targets overlap', async () => {
    const workspace = await loadTargets({ cwd: join(FIXTURES, 'valid'), packages: ['packages/flow', 'packages/base', 'base'] });
    expect(workspace.findings).toEqual([]);
    expect(workspace.packages.map((p) => p.key)).toEqual(['base', 'flow']);
  });

  it('loads single files by role', async () => {
    const workspace = await loadTargets({
      cwd: ROOT,
      paths: [
        'fixtures/load/valid/packages/base/roles/reviewer.yaml',
        'fixtures/load/valid/packages/base/tests/reviewer.test.yaml',
        'fixtures/load/valid/packages/flow/schemas/flow-data.json',
        'fixtures/load/invalid/packages/broken/schemas/bad.json',
      ],
    });
    expect(workspace.files.map((f) => [f.role, f.file])).toEqual([
      ['object', 'fixtures/load/valid/packages/base/roles/reviewer.yaml'],
      ['test', 'fixtures/load/valid/packages/base/tests/reviewer.test.yaml'],
      ['document', 'fixtures/load/valid/packages/flow/schemas/flow-data.json'],
    ]);
    expect(workspace.findings.map((f) => f.code)).toEqual(['invalid_json']);
  });

  describe('in a directory without packages', () => {
    let empty: string;
    beforeAll(async () => void (empty = await mkdtemp(join(tmpdir(), 'package-sdk-empty-'))));
    afterAll(() => rm(empty, { recursive: true, force: true }));

    it('says there is nothing to load', async () => {
      const workspace = await loadTargets({ cwd: empty });
      expect(workspace.packages).toEqual([]);
      expect(workspace.findings.map((f) => f.code)).toEqual(['package_not_found']);
    });
  });
});

describe('the package graph', async () => {
  const workspace = await loadTargets({ cwd: join(FIXTURES, 'valid') });

  it('shows a package its own objects and those of its requires closure, nothing else', () => {
    expect(workspace.visiblePackages('flow')).toEqual(['flow', 'base']);
    expect(workspace.visiblePackages('base')).toEqual(['base']);
    expect(workspace.lookup('flow', 'Role', 'reviewer')?.package).toBe('base');
    expect(workspace.lookup('flow', 'Skill', 'request.classify@2')?.file).toMatch(/classify\.yaml$/);
    expect(workspace.lookup('flow', 'Skill', 'request.classify@1')).toBeUndefined();
    expect(workspace.lookup('base', 'TaskType', 'request-review')).toBeUndefined();
    expect(workspace.visibleIds('flow', 'Process').sort()).toEqual(['flow', 'flow-copy']);
  });

  it('lists objects by kind and every document by file', () => {
    expect(workspace.objects('Process').map((o) => o.key)).toEqual(['flow-copy', 'flow']);
    expect([...workspace.documents().keys()]).toContain('packages/flow/schemas/flow-data.json');
    expect([...workspace.documents().keys()]).toContain('packages/base/i18n/en.yaml');
  });
});
