/**
 * What `package-sdk test` does between parsing its flags and printing, in process: the report and exit code of
 * a run, one test chosen by name (and a name no test has, refused), the JUnit file, packages with check
 * errors, targets that cannot be read, and the scenarios sent to a core (a real local core over HTTP), whose
 * report is the in-process one. The built CLI is in test/e2e/test-command.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLocalCore } from '../../src/server/local.js';
import { runTestCommand } from '../../src/cli/test.js';
import { runTestsOnServer } from '../../src/sandbox/remote.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(FIXTURES, 'sandbox/packages/engine-demo');
const DEADLINES = join(FIXTURES, 'sandbox/packages/workshop-deadlines');

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'test-command-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('package-sdk test, in process', () => {
  it('reports one test chosen by name, as --json prints it, and exits 0', async () => {
    const outcome = await runTestCommand({ cwd: ROOT, paths: [DEMO], test: 'an order nobody pays ends unpaid' });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.report).toMatchObject({ ok: true, passed: 1, failed: 0, tests: [{ name: 'an order nobody pays ends unpaid', status: 'passed', subject: 'process', target: 'order' }] });
    expect(outcome.text().trim().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('writes JUnit XML', async () => {
    const junit = join(scratch(), 'results.xml');
    const outcome = await runTestCommand({ cwd: ROOT, paths: [DEMO], junit });
    expect(outcome.exitCode).toBe(0);
    expect(readFileSync(junit, 'utf8')).toContain('<testsuite name="engine-demo" tests="7" failures="0" errors="0">');
  });

  it('refuses the scenarios of a package with check errors (exit 1)', async () => {
    const taskType = readFileSync(join(DEMO, 'task-types/order-check.yaml'), 'utf8').replace(/^spec:$/m, 'spec:\n  colour: blue');
    const broken = overlay(DEMO, { 'task-types/order-check.yaml': taskType });
    onTestFinished(() => rmSync(broken, { recursive: true, force: true }));
    const outcome = await runTestCommand({ cwd: ROOT, paths: [broken] });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report).toMatchObject({ ok: false, passed: 0, errors: 7 });
    expect(outcome.text()).toContain('check_failed');
  });

  it('refuses a --test that names no test (exit 2) and lists the names there are', async () => {
    await expect(runTestCommand({ cwd: ROOT, paths: [DEMO], test: 'nosuch' })).rejects.toMatchObject({
      code: 'no_test_selected', exitCode: 2, details: { test: 'nosuch', tests: expect.arrayContaining(['an order nobody pays ends unpaid']) },
    });
  });

  it('refuses a file target that is not a test (exit 2) instead of reporting 0 passed', async () => {
    const object = join(DEMO, 'task-types/order-check.yaml');
    await expect(runTestCommand({ cwd: ROOT, paths: [object] })).rejects.toMatchObject({
      code: 'not_a_test_file', exitCode: 2, message: expect.stringContaining('is not a test file'),
    });
  });

  it('exits 2 when a target cannot be read', async () => {
    const outcome = await runTestCommand({ cwd: ROOT, paths: [join(ROOT, 'no/such/package')] });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.report.problems.map((p) => p.code)).toEqual(['read_failed']);
  });
});

describe('package-sdk test --server, in process against a local core', () => {
  let core: Awaited<ReturnType<typeof startLocalCore>>;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'test-command-core-'));
    core = await startLocalCore({ dataDir });
  });
  afterAll(async () => {
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets from the core the verdicts, failures and coverage the sandbox gives here', async () => {
    const failing = (name: string) => readFileSync(join(FIXTURES, 'sandbox/failing', `${name}.test.yaml`), 'utf8');
    const dir = overlay('sandbox/packages', { 'engine-demo/tests/status.test.yaml': failing('status'), 'engine-demo/tests/mock-missing.test.yaml': failing('mock-missing'), 'engine-demo/tests/events.test.yaml': failing('events') });
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    for (const paths of [[join(dir, 'engine-demo')], [DEADLINES]]) {
      const { report: here } = await runTestCommand({ cwd: ROOT, paths });
      const there = await runTestsOnServer({ cwd: ROOT, paths, server: core.url, env: { CP_TOKEN: core.token } });
      // The core also answers the warnings of its own checks (a decision table's gap), which a run here leaves to check.
      expect(there).toEqual({ ...here, problems: there.problems });
      expect(there.problems.filter((problem) => problem.severity !== 'warning')).toEqual(here.problems);
    }
  });

  it('sends only the test chosen by name, and refuses a name no test has', async () => {
    const options = { cwd: ROOT, paths: [DEADLINES], server: core.url, env: { CP_TOKEN: core.token } };
    const report = await runTestsOnServer({ ...options, test: 'a worked Saturday counts for the deadline' });
    expect(report.tests).toMatchObject([{ name: 'a worked Saturday counts for the deadline', status: 'passed' }]);
    await expect(runTestsOnServer({ ...options, test: 'nosuch' })).rejects.toMatchObject({ code: 'no_test_selected', exitCode: 2 });
  });
});
