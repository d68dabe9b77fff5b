import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPath, loadPackage } from '../../src/load/package.js';
import type { Finding } from '../../src/model/finding.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'fixtures/load');
const summary = (f: Finding) => ({ code: f.code, file: f.file, line: f.line, column: f.column, path: f.path });

describe('a valid package', async () => {
  const { package: flow, findings } = await loadPackage('fixtures/load/valid/packages/flow', { cwd: ROOT });
  const { package: base } = await loadPackage('fixtures/load/valid/packages/base', { cwd: ROOT });

  it('loads without findings', () => {
    expect(findings).toEqual([]);
    expect(flow).toMatchObject({ key: 'flow', version: '1.2.0', dir: join(FIXTURES, 'valid/packages/flow') });
    expect(flow!.requires).toEqual([{ package: 'base', version: '>=0.1', pointer: '/spec/requires/0' }]);
  });

  it('finds objects by kind in any folder, hidden ones too, in path order', () => {
    expect(flow!.objects.map((o) => [o.ref, o.file])).toEqual([
      ['View/flow-list', 'fixtures/load/valid/packages/flow/.hidden/flow-list.yaml'],
      ['TaskType/request-review', 'fixtures/load/valid/packages/flow/misc/deep/request-review.yaml'],
      ['Process/flow-copy', 'fixtures/load/valid/packages/flow/processes/flow-copy.yaml'],
      ['Process/flow', 'fixtures/load/valid/packages/flow/processes/flow.yaml'],
    ]);
  });

  it('identifies a Skill by key@version', () => {
    expect(base!.objects.find((o) => o.kind === 'Skill')).toMatchObject({
      key: 'request.classify', version: '2', id: 'request.classify@2', ref: 'Skill/request.classify@2', package: 'base',
    });
  });

  it('keeps tests and dictionaries apart and skips schemas/, .layout/ and other files under tests/', () => {
    expect(base!.objects.map((o) => o.ref)).toEqual(['Role/reviewer', 'Skill/request.classify@2']);
    expect(base!.tests.map((t) => [t.name, t.file])).toEqual([['reviewer', 'fixtures/load/valid/packages/base/tests/reviewer.test.yaml']]);
    expect(base!.dictionaries.map((d) => [d.locale, (d.document.value as Record<string, string>)['base.title']])).toEqual([['en', 'Base']]);
  });

  it('resolves a process data $ref once per file, with its own document', () => {
    const [copy, process] = flow!.objects.filter((o) => o.kind === 'Process');
    expect(process!.data).toMatchObject({ ref: '../schemas/flow-data.json', file: 'fixtures/load/valid/packages/flow/schemas/flow-data.json' });
    expect(copy!.data!.document).toBe(process!.data!.document);
    expect(flow!.dataSchemas).toHaveLength(1);
    expect(process!.data!.document.floats).toEqual(new Set(['/properties/amount/minimum']));
    expect(process!.data!.document.locate('/properties/amount/type')).toMatchObject({ line: 4, column: 24 });
  });

  it('keeps variables raw', () => {
    expect(flow!.objects.find((o) => o.key === 'flow')!.spec.workspaceId).toBe('${FLOW_WORKSPACE_ID}');
  });
});

describe('a package with bad files', async () => {
  const { package: broken, findings } = await loadPackage('fixtures/load/invalid/packages/broken', { cwd: ROOT });
  const at = 'fixtures/load/invalid/packages/broken/';

  it('reports each bad file at its place and still loads the others', () => {
    expect(findings.map(summary)).toEqual([
      { code: 'unknown_kind', file: `${at}misc/typo.yaml`, line: 2, column: 7, path: '/kind' },
      { code: 'invalid_json', file: `${at}schemas/bad.json`, line: 2, column: 17, path: '' },
      { code: 'unresolved_data_ref', file: `${at}processes/bad-json.yaml`, line: 5, column: 16, path: '/spec/data/$ref' },
      { code: 'unresolved_data_ref', file: `${at}processes/missing.yaml`, line: 5, column: 16, path: '/spec/data/$ref' },
      { code: 'unresolved_data_ref', file: `${at}processes/not-object.yaml`, line: 5, column: 16, path: '/spec/data/$ref' },
      { code: 'unresolved_data_ref', file: `${at}processes/outside.yaml`, line: 5, column: 16, path: '/spec/data/$ref' },
      { code: 'invalid_yaml', file: `${at}task-types/infinite.yaml`, line: 5, column: 10, path: '/spec/limit' },
      { code: 'invalid_document', file: `${at}task-types/no-spec.yaml`, line: 1, column: 1, path: '' },
      { code: 'invalid_document', file: `${at}task-types/spec-list.yaml`, line: 5, column: 3, path: '/spec' },
      { code: 'invalid_yaml', file: `${at}task-types/syntax.yaml`, line: 6, column: 3, path: '' },
      { code: 'invalid_document', file: `${at}task-types/wrong-api.yaml`, line: 1, column: 13, path: '/apiVersion' },
    ]);
    expect(broken!.objects.map((o) => o.ref)).toEqual([
      'Process/bad-json', 'Process/missing', 'Process/not-object', 'Process/outside', 'TaskType/ok',
    ]);
  });

  it('says what is wrong', () => {
    const message = (file: string) => findings.find((f) => f.file === `${at}${file}`)!;
    expect(message('misc/typo.yaml')).toMatchObject({
      message: expect.stringMatching(/^unknown kind 'Tasktype'; expected one of KnowledgePack, .*, View, Component$/),
      hint: "did you mean 'TaskType'?",
    });
    expect(message('processes/outside.yaml').message).toBe("data.$ref '../../outside.json' points outside the package");
    expect(message('processes/missing.yaml').message).toBe("data.$ref '../schemas/nope.json' — no such file in the package");
    expect(message('processes/not-object.yaml').message).toBe("data.$ref '../schemas/list.yaml' — the process data schema is a JSON Schema object");
    expect(message('task-types/no-spec.yaml').message).toMatch(/the apiVersion: taimen.ai\/v1, kind, key, spec wrapper is required — 'spec' is missing/);
  });
});

describe('the package manifest', () => {
  it('must exist', async () => {
    const { package: pkg, findings } = await loadPackage('fixtures/load/invalid/packages/no-manifest', { cwd: ROOT });
    expect(pkg).toBeUndefined();
    expect(findings.map(summary)).toEqual([
      { code: 'package_not_found', file: 'fixtures/load/invalid/packages/no-manifest/package.yaml', line: 1, column: 1, path: '' },
    ]);
  });

  it('must be kind: Package', async () => {
    const { findings } = await loadPackage('fixtures/load/invalid/packages/manifest-kind', { cwd: ROOT });
    expect(findings.map(summary)).toEqual([
      { code: 'invalid_document', file: 'fixtures/load/invalid/packages/manifest-kind/package.yaml', line: 2, column: 7, path: '/kind' },
    ]);
  });

  it('must carry the directory name as key', async () => {
    const { package: pkg, findings } = await loadPackage('fixtures/load/invalid/packages/misnamed', { cwd: ROOT });
    expect(pkg!.key).toBe('other-name');
    expect(findings.map(summary)).toEqual([
      { code: 'package_key_mismatch', file: 'fixtures/load/invalid/packages/misnamed/package.yaml', line: 3, column: 6, path: '/key' },
    ]);
    expect(findings[0]!.message).toBe("key 'other-name' does not match the directory name 'misnamed'");
  });

  it('must carry the key the installation gives', async () => {
    const { findings } = await loadPackage('fixtures/load/valid/packages/base', { cwd: ROOT, expectedKey: 'basis' });
    expect(findings.map((f) => [f.code, f.message])).toEqual([
      ['package_key_mismatch', "key 'base' does not match the key 'basis' the installation gives this package"],
    ]);
  });

  describe('with the directory reached through a link or copied', () => {
    let temp: string;
    beforeAll(async () => {
      temp = await mkdtemp(join(tmpdir(), 'package-sdk-load-'));
      await symlink(join(FIXTURES, 'valid/packages/base'), join(temp, 'linked'));
      await cp(join(FIXTURES, 'valid/packages/base'), join(temp, 'renamed'), { recursive: true });
    });
    afterAll(() => rm(temp, { recursive: true, force: true }));

    it('compares the key with the real directory name', async () => {
      const linked = await loadPackage(join(temp, 'linked'));
      expect(linked.findings).toEqual([]);
      expect(linked.package!.dir).toBe(join(FIXTURES, 'valid/packages/base'));
      const renamed = await loadPackage(join(temp, 'renamed'));
      expect(renamed.findings.map((f) => f.code)).toEqual(['package_key_mismatch']);
    });
  });
});

describe('files as the core reads them', async () => {
  const { overlay } = await import('../support/overlay.js');
  const { check } = await import('../../src/check/index.js');
  const { rmSync } = await import('node:fs');
  const object = (kind: string, key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: ${kind}\nkey: ${key}\nspec:\n${spec}\n`;
  const dir = overlay('check/_bases/shop', {
    'packages/shop/roles/clerks.yml': object('Role', 'clerks', '  name: Clerks'),
    'packages/shop/tests/clerks.test.yml': 'taskType: nothing\nsubject: taskType\nsteps: []\n',
    'packages/shop/templates/customer.yaml': 'pack: company@1\nkind: customer\ncolumns:\n  - {field: key, header: Code}\n  - {field: title, header: Name}\n',
    'packages/shop/templates/supplier.yaml': 'pack: company\nkind: supplier\ncolumns: [{header: Name}]\n',
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const { package: shop, findings } = await loadPackage(join(dir, 'packages/shop'), { cwd: dir });

  it('loads objects and tests from .yml files too', () => {
    expect(findings).toEqual([]);
    expect(shop!.objects.map((o) => o.ref)).toEqual(['Role/clerks']);
    expect(shop!.tests.map((t) => [t.name, t.file])).toEqual([['clerks', 'packages/shop/tests/clerks.test.yml']]);
  });

  it('keeps the upload templates of templates/ apart, and checks them against knowledge-template.schema.json', async () => {
    expect(shop!.templates.map((t) => t.file)).toEqual(['packages/shop/templates/customer.yaml', 'packages/shop/templates/supplier.yaml']);
    const { report } = await check({ cwd: dir });
    expect(report.errors.map((f) => `${f.code} ${f.file} ${f.path}`)).toEqual([
      'schema_violation packages/shop/templates/supplier.yaml /pack',
      'schema_violation packages/shop/templates/supplier.yaml /columns/0',
      'schema_violation packages/shop/tests/clerks.test.yml ', // a test by its name, checked against test.schema.json
    ]);
  });
});

describe('path order', () => {
  /**
   * The reference's order of `Path` objects, as it is defined: segment by segment, a segment that ends first
   * first, segments compared by code points (as Python compares strings).
   */
  const byCodePoints = (a: string, b: string): number => {
    const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const bySegments = (a: string, b: string): number => {
    const [x, y] = [a.split('/'), b.split('/')];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return byCodePoints(x[i]!, y[i]!);
    return x.length - y.length;
  };
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'package-sdk-order-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is the order of Path objects, segment by segment, for names of every character that sorts around / and the loader\'s marks', async () => {
    // 0x01 is the mark the loader puts after a folder's name to sort it: a name may hold it (Linux allows any
    // character but NUL and /), and the order must not change.
    // U+FF02 and U+1F600: by code points the first sorts first, by UTF-16 units the second.
    const characters = ['a', 'b', 'B', '-', '.', '0', '_', '~', ' ', 'é', '\u0001', '\uFF02', '\u{1F600}'];
    let seed = 21;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const segment = () => Array.from({ length: 1 + random(4) }, () => characters[random(characters.length)]).join('');
    const root = join(dir, 'order');
    const files = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const segments = Array.from({ length: 1 + random(3) }, segment);
      if (segments.some((name) => /^\.+$/.test(name))) continue;
      files.add(`${segments.join('/')}.yaml`);
    }
    // A folder whose name starts another name, with the mark or '-' or '.' next.
    for (const file of ['a/x.yaml', 'a\u0001b.yaml', 'a\u0001/y.yaml', 'a-c/d.yaml', 'a.yaml', 'ab.yaml', 'a/b/c.yaml']) files.add(file);
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: order\nspec: {version: 1.0.0}\n');
    let key = 0;
    for (const file of files) {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await writeFile(join(root, file), `apiVersion: taimen.ai/v1\nkind: Role\nkey: r${key++}\nspec: {name: r}\n`);
    }
    const { package: loaded, findings } = await loadPackage(root, { cwd: root });
    expect(findings).toEqual([]);
    expect(loaded!.objects.map((object) => object.file)).toEqual([...files].sort(bySegments));
  });
});

describe('file paths as findings show them', () => {
  // What `relative` gives, whichever shortcut displayPath takes: beside, above, below and inside the working
  // directory, with names that share a prefix with a folder of the other path.
  const folders = ['/w', '/w/pkg', '/w/pkg/roles', '/w/pkgs', '/w/pk', '/v', '/v/w/pkg', '/w/pkg/roles/o1.yaml'];
  const files = ['/w/pkg/roles/o1.yaml', '/w/pkg/o1.yaml', '/w/pkgs/a.yaml', '/v/w/pkg/b.yaml', '/w/pkg', '/w/x.yaml', '/w/pkg/./r/a.yaml', '/w//pkg/a.yaml', '/a.yaml'];
  it('are the paths relative to the working directory, with /', () => {
    for (const cwd of folders) {
      for (const file of files) expect([cwd, file, displayPath(cwd, file)]).toEqual([cwd, file, relative(cwd, resolve(cwd, file))]);
    }
  });
});
