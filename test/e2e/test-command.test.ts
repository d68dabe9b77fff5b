/**
 * `package-sdk test` through the built CLI: the text report and exit codes, `--json`, `--junit`, and
 * `--server local` (the embedded core answers POST /packages:test with the sandbox).
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, scratchDir } from '../support/cli.js';

const SLA = join(ROOT, '../shared/corpus/fixtures/sla/packages/sla-demo');
const DEMO = join(ROOT, 'fixtures/sandbox/packages/engine-demo');

describe('package-sdk test', () => {
  const scratch = scratchDir('test-command-');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes the example and exits 0', async () => {
    const out = await runCli(['test', 'fixtures/example/packages/field-maintenance']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('✓ costly parts rejected by a stores manager defer the repair');
    expect(out.stdout.trim().split('\n').at(-1)).toBe('6 passed, 0 failed');
  });

  it('prints the JSON report', async () => {
    const out = await runCli(['test', DEMO, '--json', '--test', 'an order nobody pays ends unpaid']);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({ ok: true, passed: 1, failed: 0, tests: [{ name: 'an order nobody pays ends unpaid', status: 'passed', subject: 'process', target: 'order' }] });
  });

  it('writes JUnit XML', async () => {
    const junit = join(scratch, 'results.xml');
    const out = await runCli(['test', join(ROOT, 'fixtures/sandbox/packages/engine-demo'), '--junit', junit], { cwd: scratch });
    expect(out.code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="engine-demo" tests="7" failures="0" errors="0">');
  });

  it('refuses the scenarios of a package with check errors', async () => {
    const broken = join(scratch, 'engine-demo');
    cpSync(DEMO, broken, { recursive: true });
    const taskType = join(broken, 'task-types/order-check.yaml');
    writeFileSync(taskType, readFileSync(taskType, 'utf8').replace(/^spec:$/m, 'spec:\n  colour: blue'));
    const out = await runCli(['test', broken]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('check_failed');
  });

  it('runs on the embedded core with --server local', async () => {
    const out = await runCli(['test', SLA, '--server', 'local', '--json'], { cwd: scratch });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, passed: 1, tests: [{ name: 'the review is late, the process is in time', status: 'passed' }] });
  });
});
