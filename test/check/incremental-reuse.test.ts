/**
 * The first step of a plain `check` (the small bundle bin/run.js tries first) prints a stored report that
 * still stands exactly as the full job does, and leaves everything else to the full job.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCheckArgs, runCheckFast, runCheckRequest } from '../../src/cli/check.js';
import { runReusedCheckFast } from '../../src/cli/check-reuse.js';
import { activeParseCache, ParseCache, useParseCache, type IndexLook } from '../../src/load/parse-cache.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-reuse-'));
const DIR = overlay(join(FIXTURES, 'check/_bases/purchase-requests'));
const PACKAGE = join(DIR, 'packages/purchase-requests');
const PROCESS = join(PACKAGE, 'processes/purchase-request.yaml');
/** Longer than the index's racy window: stats older than this are trusted. */
const settle = () => new Promise((done) => setTimeout(done, 120));

/** What `job` prints for `args`, and what it returns. */
async function run(job: (argv: readonly string[], version: string) => Promise<number | undefined>, args: string[]): Promise<[number | undefined, string]> {
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    return [await job(args, '0.0.0'), out];
  } finally {
    write.mockRestore();
    useParseCache(undefined);
  }
}

describe('check answered from a stored report', () => {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.PACKAGE_SDK_CACHE;
    process.env.PACKAGE_SDK_CACHE = CACHE;
    writeFileSync(PROCESS, readFileSync(PROCESS, 'utf8').replace('[{role: buyer}]\n          output', '[{role: buyr}]\n          output'));
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.PACKAGE_SDK_CACHE;
    else process.env.PACKAGE_SDK_CACHE = saved;
    for (const dir of [CACHE, DIR]) rmSync(dir, { recursive: true, force: true });
  });

  it('prints what the full job prints, for the package and for a staged file of it, in every format it answers', async () => {
    const asked = [['--package', PACKAGE], ['--package', PACKAGE, '--json'], ['--package', PACKAGE, '--format', 'github'], [PROCESS]];
    await settle();
    expect(await run(runReusedCheckFast, asked[0]!), 'nothing stored yet').toEqual([undefined, '']);
    for (const args of asked) {
      const full = await run(runCheckFast, args);
      await settle();
      expect(full[1]).toContain('role_not_declared');
      expect(await run(runReusedCheckFast, args), args.join(' ')).toEqual(full);
    }
    appendFileSync(PROCESS, '# a comment past the last node\n');
    await settle();
    const [code, out] = await run(runReusedCheckFast, [PROCESS]);
    expect([code, out]).toEqual(await run(runCheckFast, [PROCESS]));
  });

  it('leaves to the full job what a stored report does not answer', async () => {
    await run(runCheckFast, ['--package', PACKAGE]);
    await settle();
    for (const extra of [['--no-cache'], ['--schema-only'], ['--format', 'sarif'], ['--list-rules'], ['--unknown-flag']]) {
      expect(await run(runReusedCheckFast, ['--package', PACKAGE, ...extra]), extra.join(' ')).toEqual([undefined, '']);
    }
    writeFileSync(PROCESS, readFileSync(PROCESS, 'utf8').replace('displayName: Purchase request', 'displayName: Purchase requests'));
    await settle();
    expect(await run(runReusedCheckFast, ['--package', PACKAGE]), 'a value edited').toEqual([undefined, '']);
  });

  it('reads no index with --no-cache, even after a check of this process used one (a resident checker, a library caller)', async () => {
    const asked = { ...parseCheckArgs(['--package', PACKAGE])!, cwd: DIR };
    await runCheckRequest(asked, '0.0.0');
    expect(activeParseCache(), 'the check used the index').toBeDefined();
    await runCheckRequest({ ...asked, cache: false }, '0.0.0');
    expect(activeParseCache(), '--no-cache').toBeUndefined();
  });

  it('runs the index of an earlier check of the process again: its report and memo are not read back, and each file is stat\'ed anew', async () => {
    const asked = { ...parseCheckArgs(['--package', PACKAGE])!, cwd: DIR };
    const dropStored = () => readdirSync(join(CACHE, 'check')).forEach((name) => /\.(results|memo)\./.test(name) && rmSync(join(CACHE, 'check', name)));
    try {
      dropStored(); // the first check runs its rules, and keeps a memo
      const first = await runCheckRequest(asked, '0.0.0');
      const index = activeParseCache();
      expect(first.output).toContain('role_not_declared');
      writeFileSync(PROCESS, readFileSync(PROCESS, 'utf8').replace('{role: buyr}', '{role: buyer}'));
      dropStored(); // only the process's memory holds them now
      await settle();
      const second = await runCheckRequest(asked, '0.0.0');
      expect(activeParseCache(), 'the same index').toBe(index);
      expect(second.objectRuns?.taken, 'runs taken from the memo in memory').toBeGreaterThan(0);
      expect(second.result).toEqual((await runCheckRequest({ ...asked, cache: false }, '0.0.0')).result);
      expect(second.output).not.toContain('role_not_declared');
    } finally {
      writeFileSync(PROCESS, readFileSync(PROCESS, 'utf8').replace('{role: buyer}', '{role: buyr}'));
      useParseCache(undefined);
    }
  });

  it('hands the full job what it saw of the index: the job asks no stored report again, and takes its stats', async () => {
    await run(runCheckFast, ['--package', PACKAGE]);
    writeFileSync(PROCESS, readFileSync(PROCESS, 'utf8').replace(/displayName: .*/, 'displayName: Handed over'));
    await settle();
    let look: IndexLook | undefined;
    const lookFirst = (argv: readonly string[], version: string) => runReusedCheckFast(argv, version, (seen) => void (look = seen));
    expect(await run(lookFirst, ['--package', PACKAGE]), 'a value edited').toEqual([undefined, '']);
    expect(look?.result?.stored, 'the stored report it found stale').toBeDefined();
    expect(look?.stats.size).toBeGreaterThan(0);
    const handed = await run((argv, version) => runCheckFast(argv, version, look), ['--package', PACKAGE]);
    expect(handed).toEqual(await run(runCheckFast, ['--package', PACKAGE, '--no-cache']));
    // Taken only by an index of the same workspace (and build).
    expect(new ParseCache(join(CACHE, 'check'), process.cwd(), look).look().stats.size).toBe(look!.stats.size);
    expect(new ParseCache(join(CACHE, 'check'), DIR, look).look().stats.size).toBe(0);
  });

  it('answers a check of an installation of local packages, through files written beside it, until a package appears where an entry points', async () => {
    const install = join(DIR, 'local.yaml');
    writeFileSync(install, [
      'apiVersion: taimen.ai/v1', 'kind: Installation', 'key: local', 'spec:', '  packages:',
      '    - {key: purchase-requests, path: ./packages/purchase-requests}', '    - {key: later, path: ./later}', '',
    ].join('\n'));
    const args = ['--install', install];
    await settle();
    const full = await run(runCheckFast, args);
    await settle();
    expect(full[1]).toContain('package_not_found');
    expect(await run(runReusedCheckFast, args)).toEqual(full);
    writeFileSync(join(DIR, 'plan.json'), '{}\n'); // written beside the installation by a plan: not an input
    await settle();
    expect(await run(runReusedCheckFast, args), 'a plan written beside it').toEqual(full);
    mkdirSync(join(DIR, 'later'));
    writeFileSync(join(DIR, 'later/package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: later\nspec: {version: 1.0.0}\n');
    await settle();
    expect(await run(runReusedCheckFast, args), 'the entry now finds a package').toEqual([undefined, '']);
    const again = await run(runCheckFast, args);
    expect(again[1]).not.toContain('package_not_found');
    await settle();
    expect(await run(runReusedCheckFast, args)).toEqual(again);
    // A key alone is looked for as <folder>/<key>/package.yaml in the search folders.
    writeFileSync(install, readFileSync(install, 'utf8').replace('    - {key: later', '    - extra\n    - {key: later'));
    await settle();
    expect((await run(runCheckFast, args))[1]).toContain("package 'extra' not found");
    await settle();
    mkdirSync(join(DIR, 'packages/extra'));
    writeFileSync(join(DIR, 'packages/extra/package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: extra\nspec: {version: 1.0.0}\n');
    await settle();
    expect(await run(runReusedCheckFast, args), 'the key now finds a package').toEqual([undefined, '']);
  });

  it('keeps no report of an installation with a git source: what it resolves to depends on its remote', async () => {
    const install = join(DIR, 'remote.yaml');
    writeFileSync(install, [
      'apiVersion: taimen.ai/v1', 'kind: Installation', 'key: remote', 'spec:', '  packages:',
      '    - {key: purchase-requests, path: ./packages/purchase-requests}',
      '    - {key: shared, git: "https://git.example.com/shared.git", ref: v1.0.0}', '',
    ].join('\n'));
    const args = ['--install', install];
    await settle();
    const full = await run(runCheckFast, args);
    expect(full[1]).toContain('lock_required');
    await settle();
    expect(await run(runReusedCheckFast, args)).toEqual([undefined, '']);
  });
});
