/**
 * `package-sdk plan --out` and `apply --plan` as a CD pipeline runs them: the built CLI, on a copy of the
 * bundled example, against a local core over HTTP — and with `--server local`, the core it embeds. The cases
 * of plan and apply run in process (test/plan/plan-apply.test.ts); these are the commands' own smoke tests,
 * and the apply a test kills.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../core/support.js';
import { describeKilledApply } from '../plan/plan-apply.js';
import { copyInstallation, EXAMPLE, type ScratchInstallation, startSubjectCore, subjectEnv } from '../plan/support.js';
import { ROOT, runCli, scratchDir } from '../support/cli.js';

describe('plan and apply of the bundled example against a local core', () => {
  let core: TestCore;
  let scratch: ScratchInstallation;
  beforeEach(async () => {
    core = await startSubjectCore(EXAMPLE);
    scratch = copyInstallation(EXAMPLE);
  });
  afterEach(async () => {
    await core.dispose();
    scratch.remove();
  });

  it('plan prints and saves the plan, apply --plan-hash writes it, and plan --json prints exactly the plan it saved', async () => {
    const planFile = join(scratch.dir, 'plan.json');
    const env = subjectEnv(EXAMPLE, core);
    const plan = (extra: string[] = []) => runCli(['plan', '--install', scratch.install, '--server', core.url, '--out', planFile, ...extra], { cwd: scratch.dir, env });
    const first = await plan(['--detailed-exitcode']);
    expect(first.stderr).not.toContain('rror');
    expect(first.code, first.stderr).toBe(2); // changes

    expect(first.stdout).toMatch(/^ {2}\+ Process\/work-order: create$/m);
    expect(first.stdout).toMatch(/^Plan: \d+ to add, 0 to change, 0 to retire\.\ntotal changes: \d+$/m);
    const { planHash } = JSON.parse(readFileSync(planFile, 'utf8')) as { planHash: string };
    expect(first.stdout).toContain(`plan saved: ${planFile} (planHash ${planHash})`);
    expect(first.stdout).toContain(`apply it: package-sdk apply --plan ${planFile} --server ${core.url}`);

    const applied = await runCli(['apply', '--plan', planFile, '--plan-hash', planHash], { cwd: scratch.dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/applied plan sha256:[0-9a-f]{64} \(package-sdk\.plan\/v1\): \d+ changes written/);

    const unchanged = await plan(['--detailed-exitcode']);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toMatch(/^no changes\n\nplan saved: .*\n$/m);
    expect(unchanged.stdout).not.toContain('apply it');
    const refused = await runCli(['plan', '--install', scratch.install, '--server', 'http://example.com', '--out', planFile, '--detailed-exitcode'], { cwd: scratch.dir, env });
    expect(refused.code, refused.stderr).toBe(1); // a usage problem too: 2 means changes here
    expect(refused.stderr).toContain("core address 'http://example.com': expected https://");

    const again = await plan(['--json']);
    expect(again.code, again.stderr).toBe(0);
    const printed = JSON.parse(again.stdout);
    expect(printed).toEqual(JSON.parse(readFileSync(planFile, 'utf8')));
    expect(printed.sections[0]).toEqual({ kind: 'catalog', changes: [] });
  });
});

describeKilledApply(EXAMPLE);

describe('the bundled example with --server local', () => {
  const cwd = scratchDir('plan-local-');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('plans, applies with --auto-approve, and plans again with no changes', async () => {
    const install = join(ROOT, 'fixtures/example/packages.yaml');
    const env = join(ROOT, 'fixtures/example/example.env');
    const out = join(cwd, 'plan.json');
    const first = await runCli(['plan', '--install', install, '--server', 'local', '--env', env, '--out', out], { cwd });
    expect(first.stderr).not.toContain('rror');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`apply it: package-sdk apply --plan ${out} --server local --env ${env}`);
    expect(JSON.parse(readFileSync(out, 'utf8')).server).toBe('http://localhost/local');
    const applied = await runCli(['apply', '--plan', out, '--server', 'local', '--env', env, '--auto-approve'], { cwd });
    expect(applied.stderr).not.toContain('rror');
    expect(applied.code, applied.stderr).toBe(0);
    const again = await runCli(['plan', '--install', install, '--server', 'local', '--env', env, '--out', out], { cwd });
    expect(again.stdout).toMatch(/^no changes$/m);
  });
});
