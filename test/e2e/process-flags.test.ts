/**
 * The V8 flags of a package-sdk process (bin/check-bundle.js, `PROCESS_V8_FLAGS`). Sixteen times V8's budget
 * before a function is optimised: a check then sends a fraction of the functions the same check sends under
 * the default to the optimising compiler. And the built lean jobs start from V8's code caches (bin/check-bundle.js): V8 takes a cache only under the flags
 * it was made with, so the build records them under the flags bin/run.js sets, and a flag changed during a
 * run (the young generation held, src/load/young-generation.ts) comes after the validators are loaded. A cache
 * V8 refuses costs every run of the job the compilation of its 2 MB bundle, silently: hence this test. In a
 * process of its own, since V8's flags are the process's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { keptWhileLoading } from '../support/loading.js';

/** Runs `body` (an ES module's text, given `root`, `loadBundle` and `useProcessV8Flags`) and returns what it printed, as JSON. */
function inProcess(body: string): unknown {
  if (!existsSync(join(ROOT, 'dist/cli/check.bundle.v8'))) throw new Error('build first: npm run build (npm test does it)');
  const script = `
    import { setFlagsFromString } from 'node:v8';
    import { loadBundle, useProcessV8Flags } from ${JSON.stringify(pathToFileURL(join(ROOT, 'bin/check-bundle.js')).href)};
    const root = ${JSON.stringify(`${ROOT}/`)};
    ${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout);
}

/** The lean jobs, each a bundle with its code cache. */
const JOBS = ['check', 'check-reuse', 'test', 'graph', 'plan'];

describe('the V8 flags of a lean job', () => {
  it('are set between the job and its validators, as the build recorded their caches: every cache is taken, and refused in the other order', () => {
    // Each job once, and the validators once (a script compiled again in the same process comes from V8's own
    // memory, and says nothing of its cache).
    const rejected = (flagsFirst: boolean): unknown => inProcess(`
      ${flagsFirst ? 'useProcessV8Flags();' : ''}
      const jobs = Object.fromEntries(${JSON.stringify(JOBS)}.map((name) => [name, loadBundle(root, name).script.cachedDataRejected]));
      const { validators } = loadBundle(root, 'check');
      ${flagsFirst ? 'setFlagsFromString(\'--interrupt-budget=67584\');' : 'useProcessV8Flags();'}
      globalThis[Symbol.for('package-sdk.validators')]();
      process.stdout.write(JSON.stringify({ ...jobs, validators: validators.loaded.script.cachedDataRejected }));`);
    expect(rejected(false)).toEqual(Object.fromEntries([...JOBS, 'validators'].map((name) => [name, false])));
    expect(rejected(true)).toEqual(Object.fromEntries([...JOBS, 'validators'].map((name) => [name, true])));
  });

  it('leave the bundles in ASCII, which bin/check-bundle.js reads as one-byte text', () => {
    for (const bundle of [...JOBS.map((name) => `dist/cli/${name}.bundle.cjs`), 'dist/schema/validators.bundle.cjs']) {
      expect(readFileSync(join(ROOT, bundle)).findIndex((byte) => byte > 0x7f), bundle).toBe(-1);
    }
  });

  it('leave the validators\' cache to be taken when the loader held the young generation before any file was validated', () => {
    const outcome = inProcess(`
      const { validators } = loadBundle(root, 'check');
      useProcessV8Flags();
      const { holdYoungGeneration } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/load/young-generation.js')).href)});
      ${keptWhileLoading(true)}
      const loadedBeforeTheEnd = validators.loaded !== undefined; // by the hold, before any file asked for them
      globalThis[Symbol.for('package-sdk.validators')]();
      process.stdout.write(JSON.stringify({ loadedBeforeTheEnd, rejected: validators.loaded.script.cachedDataRejected }));`);
    expect(outcome).toEqual({ loadedBeforeTheEnd: true, rejected: false });
  });

  it('send a check\'s functions to the optimising compiler far less often than V8\'s default budget does', () => {
    const pkg = join(ROOT, 'fixtures/example/packages/field-maintenance');
    const compiled = (args: string[]): number => {
      const child = spawnSync(process.execPath, ['--trace-opt', ...args], { cwd: ROOT, encoding: 'utf8' });
      expect(child.status).toBe(0);
      return child.stdout.split('\n').filter((line) => line.startsWith('[completed compiling')).length;
    };
    // The same check through the lean entry of the built modules, without bin/run.js: V8's default budget.
    const byDefault = compiled(['--input-type=module', '-e', `const { runCheckFast } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/cli/check.js')).href)});
      process.stdout.write('ok: ' + await runCheckFast(['--no-cache', '--package', ${JSON.stringify(pkg)}], '0') + '\\n');`]);
    const asRun = compiled(['bin/run.js', 'check', '--no-cache', '--package', pkg]);
    expect(byDefault).toBeGreaterThan(10);
    expect(asRun).toBeLessThan(byDefault / 4);
  });
});
