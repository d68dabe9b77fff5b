/**
 * What a lean `check` loads of node's own modules: each costs start-up time, paid on every commit a hook checks.
 * A check without the index never hashes nor names a file, so node's crypto (fifteen modules, ~3 ms) stays
 * unloaded; a check with the index loads it. The built CLI as a child process, reporting node's list of loaded
 * modules as it exits.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'start-up-'));
const preload = join(dir, 'modules.cjs');
writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n')));\n");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** node's modules loaded by `package-sdk check ...args` on the example package. */
function modulesLoaded(...args: string[]): string[] {
  const out = join(dir, 'modules.txt');
  const child = spawnSync(process.execPath, ['-r', preload, 'bin/run.js', 'check', ...args, '--package', 'fixtures/example/packages/field-maintenance'], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, MODULES_OUT: out, PACKAGE_SDK_CACHE: join(dir, 'cache') },
  });
  expect(child.status, child.stderr).toBe(0);
  return readFileSync(out, 'utf8').split('\n');
}

describe('a lean check at start-up', () => {
  it('loads no crypto without the index, and loads it with the index', () => {
    expect(modulesLoaded('--no-cache').filter((name) => name.includes('crypto'))).toEqual([]);
    expect(modulesLoaded()).toContain('NativeModule crypto');
  });
});
