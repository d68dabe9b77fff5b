/**
 * The built CLI's `plan` with the check's index and with `--no-cache` (the lean entry, and the full command
 * under `--json`): the same plan — but for the moments it was made (`createdAt`, and so `planHash`) — and the
 * same output, on a copy of the bundled example against a local core over HTTP.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, type TestCore } from '../core/support.js';
import { runCli } from '../support/cli.js';
import { copyInstallation, EXAMPLE, type ScratchInstallation, startSubjectCore, subjectEnv } from './support.js';

let core: TestCore;
let scratch: ScratchInstallation;
let cacheDir: string;

beforeAll(async () => {
  core = await startSubjectCore(EXAMPLE);
  scratch = copyInstallation(EXAMPLE);
  cacheDir = tempDir('plan-cli-index-');
});

afterAll(async () => {
  await core.dispose();
  scratch.remove();
  rmSync(cacheDir, { recursive: true, force: true });
});

/** A plan document without what names the moments it was made (its own `createdAt` and the core's, and its `planHash`). */
function timeless(document: { planHash?: string }): unknown {
  const { planHash: _planHash, ...rest } = document;
  return JSON.parse(JSON.stringify(rest, (key, value: unknown) => (key === 'createdAt' ? undefined : value)));
}

describe('plan --no-cache', () => {
  it('writes and prints the plan that a plan through a warm index does', async () => {
    const planFile = join(scratch.dir, 'plan.json');
    const env = { ...subjectEnv(EXAMPLE, core), PACKAGE_SDK_CACHE: cacheDir };
    const plan = async (extra: string[] = []) => {
      const outcome = await runCli(['plan', '--install', scratch.install, '--server', core.url, '--out', planFile, ...extra], { cwd: scratch.dir, env });
      expect(outcome.code, outcome.stderr).toBe(0);
      const saved = JSON.parse(readFileSync(planFile, 'utf8')) as { planHash: string };
      return { stdout: outcome.stdout.replaceAll(saved.planHash, 'sha256:…'), saved };
    };
    await plan(); // fills the index
    const warm = await plan();
    const fresh = await plan(['--no-cache']);
    expect(warm.stdout).toMatch(/^ {2}\+ Process\/work-order: create$/m);
    expect(fresh.stdout).toBe(warm.stdout);
    expect(timeless(fresh.saved)).toEqual(timeless(warm.saved));
    const printed = await plan(['--no-cache', '--json']);
    expect(timeless(JSON.parse(printed.stdout))).toEqual(timeless(warm.saved));
  });
});
