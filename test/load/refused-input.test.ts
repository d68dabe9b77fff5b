// Input the core would refuse, or that could hang or leak, is refused with a code before it is parsed.
import { execFileSync, spawn } from 'node:child_process';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPackage } from '../../src/load/package.js';
import { loadSourceFile, NESTING_LIMIT, parseSource, SOURCE_CHARACTER_LIMIT } from '../../src/load/source.js';
import { loadTargets } from '../../src/load/targets.js';
import type { Finding } from '../../src/model/finding.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/load');
const codes = (findings: readonly Finding[]) => findings.map((f) => [f.code, f.file, f.message]);
const bytes = (text: string) => new TextEncoder().encode(text);

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'refused-input-'));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('a package with a symbolic link', () => {
  it('refuses a link that leaves the package and never reads its target', async () => {
    const dir = join(temp, 'linked', 'base');
    await cp(join(FIXTURES, 'valid/packages/base'), dir, { recursive: true });
    const secret = join(temp, 'secret.yaml');
    await writeFile(secret, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: secret-password-hunter2\nspec: {}\n');
    await symlink(secret, join(dir, 'roles', 'evil.yaml'));
    const loaded = await loadPackage(dir, { cwd: temp });
    expect(codes(loaded.findings)).toEqual([
      ['file_refused', 'linked/base/roles/evil.yaml', 'a symbolic link that points outside the package: package files are read only from inside the package'],
    ]);
    expect(JSON.stringify(loaded)).not.toContain('hunter2');
  });

  it('reads a link to a file inside the package, and refuses one to nothing', async () => {
    const dir = join(temp, 'inside', 'base');
    await cp(join(FIXTURES, 'valid/packages/base'), dir, { recursive: true });
    await symlink(join(dir, 'roles', 'reviewer.yaml'), join(dir, 'roles', 'again.yaml'));
    await symlink(join(dir, 'roles', 'gone.yaml'), join(dir, 'roles', 'dangling.yaml'));
    const loaded = await loadPackage(dir, { cwd: temp });
    expect(codes(loaded.findings).filter(([code]) => code !== 'duplicate_object')).toEqual([
      ['file_refused', 'inside/base/roles/dangling.yaml', 'a symbolic link to nothing: its target does not exist'],
    ]);
    expect(loaded.package?.objects.filter((o) => o.file.endsWith('again.yaml'))).toHaveLength(1);
  });
});

describe('a named pipe', () => {
  it('is refused without being opened, as a file target and inside a package', async () => {
    const dir = join(temp, 'piped', 'base');
    await cp(join(FIXTURES, 'valid/packages/base'), dir, { recursive: true });
    const fifo = join(dir, 'roles', 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    // A reader that blocks on the pipe would hold a thread of this worker: a writer comes by after 3 s, so it fails instead.
    spawn('timeout', ['6', 'sh', '-c', `sleep 3; : > '${fifo}'`], { stdio: 'ignore', detached: true }).unref();
    expect(codes((await loadSourceFile(fifo, 'pipe.yaml')).findings)).toEqual([
      ['file_refused', 'pipe.yaml', 'a named pipe is not a regular file: only regular files are read'],
    ]);
    const loaded = await loadPackage(dir, { cwd: temp });
    expect(codes(loaded.findings)).toEqual([
      ['file_refused', 'piped/base/roles/pipe.yaml', 'a named pipe is not a regular file: only regular files are read'],
    ]);
  }, 5_000);
});

describe('files that hold no package document', () => {
  it.each([
    ['empty.yaml', '', 'no document (it is empty or null)'],
    ['null.yaml', 'null\n', 'no document (it is empty or null)'],
    ['list.yaml', '- a\n- b\n', 'a sequence'],
    ['array.json', '[]', 'a sequence'],
    ['word.yaml', 'hello\n', 'a string'],
    ['number.json', '7', 'a scalar'],
  ])('refuses %s as a target: %s', async (name, text, what) => {
    await writeFile(join(temp, name), text);
    const workspace = await loadTargets({ cwd: temp, paths: [name] });
    expect(workspace.files).toEqual([]);
    expect(codes(workspace.findings)).toEqual([['invalid_document', name, `the file holds ${what}; a package file is a mapping`]]);
  });

  it('refuses a file of NUL bytes as not text, at the first NUL', () => {
    expect(parseSource(bytes('a: 1\n' + '\0'.repeat(1 << 20)), 'nul.yaml').findings).toMatchObject([
      { code: 'invalid_yaml', line: 2, column: 1, message: 'the file holds a NUL character (U+0000): it is not text' },
    ]);
    expect(parseSource(bytes('{"a": "\0"}'), 'nul.json').findings).toMatchObject([{ code: 'invalid_json', line: 1, column: 8 }]);
  });
});

describe("the core's limits, before parsing", () => {
  it('refuses a file over 4 000 000 characters at once, even of blank lines', () => {
    const started = performance.now();
    const result = parseSource(bytes('\n'.repeat(SOURCE_CHARACTER_LIMIT + 1)), 'blank.yaml');
    expect(result.findings).toMatchObject([{ code: 'invalid_yaml', message: expect.stringContaining("over the core's limit of 4000000 characters") }]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a file whose bytes alone are over the limit without reading it', async () => {
    const file = join(temp, 'huge.json');
    await writeFile(file, Buffer.alloc(SOURCE_CHARACTER_LIMIT * 4 + 1, 0x20));
    expect((await loadSourceFile(file, 'huge.json')).findings).toMatchObject([{ code: 'invalid_json', message: expect.stringContaining(`${SOURCE_CHARACTER_LIMIT * 4 + 1} bytes`) }]);
  });

  it('refuses nesting over 100 levels, in YAML and in JSON', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(parseSource(bytes(`a: ${nested(NESTING_LIMIT - 1)}\n`), 'ok.yaml').findings).toEqual([]);
    expect(parseSource(bytes(`a: ${nested(NESTING_LIMIT)}\n`), 'deep.yaml').findings).toMatchObject([
      { code: 'invalid_yaml', message: "the document is nested 101 levels deep, over the core's limit of 100" },
    ]);
    expect(parseSource(bytes(nested(NESTING_LIMIT + 1)), 'deep.json').findings).toMatchObject([{ code: 'invalid_json' }]);
  });
});
