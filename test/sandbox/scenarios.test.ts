/**
 * Package scenarios run in the sandbox engine: our fixtures' must pass — the example (as packages and as its
 * installation), a package over the package it requires with settings, rules and task types, deadlines in
 * working time, a richer process given as loose files, and the engine's own fixture of every step kind; a
 * failing scenario of each `expect` field says what failed and where.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { runTests, type TestOptions } from '../../src/sandbox/index.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const ROOT = join(import.meta.dirname, '../..');
const PACKAGES = join(FIXTURES, 'sandbox/packages');
const RENEWAL = join(FIXTURES, 'sandbox/renewal');

async function outcomes(options: TestOptions) {
  const { report } = await runTests({ cwd: ROOT, ...options });
  return report;
}

/** The renewal process, its calendar and every scenario of it, as loose files. */
const renewalFiles = () => readdirSync(RENEWAL).sort().map((file) => join(RENEWAL, file));

describe('scenarios that must pass', () => {
  it.each([
    ['settings, rules and task types over a required package', { paths: [join(PACKAGES, 'hire-returns')] }, 10],
    ['deadlines in working time', { paths: [join(PACKAGES, 'workshop-deadlines')] }, 3],
    ['a richer process (loose files)', { paths: renewalFiles() }, 7],
    ['the bundled example', { paths: [join(FIXTURES, 'example/packages/field-maintenance')] }, 6],
    ['the bundled example, by its installation', { install: join(FIXTURES, 'example/packages.yaml') }, 6],
    ['the engine fixture', { paths: [join(PACKAGES, 'engine-demo')] }, 7],
  ])('%s', async (_name, options, count) => {
    const report = await outcomes(options);
    expect(report.tests.filter((t) => t.status !== 'passed').map((t) => `${t.file}: ${t.failure?.message}`)).toEqual([]);
    expect(report.passed).toBe(count);
    expect(report.ok).toBe(true);
  });

  it('reports coverage per process from all its tests', async () => {
    const report = await outcomes({ paths: [join(PACKAGES, 'engine-demo')] });
    expect(report.coverage).toEqual([expect.objectContaining({ process: 'order', total: 30, covered: 28, missed: ['intake-reminder', 'remind-intake'] })]);
    const loose = await outcomes({ paths: renewalFiles() });
    expect(loose.coverage).toEqual([{ process: 'machine-renewal', total: 24, covered: 24, percent: 100, missed: [] }]);
  });

  it('selects one test by name', async () => {
    const report = await outcomes({ paths: [join(PACKAGES, 'engine-demo')], test: 'an order nobody pays ends unpaid' });
    expect(report.tests.map((t) => t.name)).toEqual(['an order nobody pays ends unpaid']);
  });

  it('runs no scenario of a package without the package it requires', async () => {
    const alone = overlay('sandbox/packages', { 'hire-base': null });
    onTestFinished(() => rmSync(alone, { recursive: true, force: true }));
    const missing = await outcomes({ paths: [join(alone, 'hire-returns')] });
    expect(missing.ok).toBe(false);
    expect(missing.problems.map((p) => p.code)).toContain('package_not_found');
    expect(missing.tests).toHaveLength(10);
    expect(missing.tests.every((t) => t.status === 'error' && t.failure?.code === 'check_failed')).toBe(true);
  });

  it('refuses settings a scenario saves that break the settings schema of the package', async () => {
    const dir = overlay('sandbox/packages', {
      'hire-returns/tests/bad-settings.test.yaml': 'process: machine-return\nname: a negative threshold\nsteps:\n  - settings: {reviewThreshold: -5}\n',
    });
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const report = await outcomes({ paths: [join(dir, 'hire-returns')], test: 'a negative threshold' });
    expect(report.tests).toMatchObject([{ status: 'failed', failure: { code: 'settings_invalid', line: 4 } }]);
    expect(report.tests[0]!.failure!.message).toMatch(/^the settings do not match the package settings schema: .*reviewThreshold/);
  });
});

describe('failing scenarios say what failed and where', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-failing-'));
  const pkg = join(dir, 'engine-demo');
  cpSync(join(ROOT, 'fixtures/sandbox/packages/engine-demo'), pkg, { recursive: true });
  rmSync(join(pkg, 'tests'), { recursive: true });
  cpSync(join(ROOT, 'fixtures/sandbox/failing'), join(pkg, 'tests'), { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const reportPromise = runTests({ cwd: dir, paths: ['engine-demo'] });

  it('runs every failing fixture and fails it', async () => {
    const { report } = await reportPromise;
    expect(report.tests).toHaveLength(readdirSync(join(ROOT, 'fixtures/sandbox/failing')).length);
    expect(report.tests.filter((t) => t.status === 'passed').map((t) => t.file)).toEqual([]);
  });

  it.each([
    ['status', 'expectation_failed', 12, /^status: expected completed, got running/],
    ['outcome', 'expectation_failed', 12, /^outcome: expected paid, got none \(status running\)/],
    ['error', 'expectation_failed', 12, /^error: expected order-rejected, got no error/],
    ['stages', 'expectation_failed', 12, /^stages\.approval: expected open, got not_started/],
    ['milestones', 'expectation_failed', 12, /^milestones: expected paid reached, reached: reserved/],
    ['tasks', 'expectation_failed', 12, /^tasks: expected a task \{"step":"check-order","assignee":"carl"\}, open tasks: \[\{"step":"check-order"/],
    ['timers', 'expectation_failed', 12, /^timers: expected a pending timer \{"id":"intake-reminder","at":"2026-10-06T14:00:00\+02:00"\}, pending: \[/],
    ['data', 'expectation_failed', 12, /^data\.tier: expected "small", got "large"/],
    ['sla', 'expectation_failed', 12, /^sla\.check-order: expected breached, got ok/],
    ['events', 'expectation_failed', 12, /^events: expected \["process\.completed"\] in order since the last expect, got \["process\.started"/],
    ['rules', 'expectation_failed', 13, /^rules: expected a decision \{"rule":"order-checked","step":"check-order","result":"matched"\}, decisions since the last expect: \[\{"rule":"order-checked","action":"complete_work","step":"check-order","result":"not_matched","reason":"the condition is false"\},\{"rule":"order-withdrawn",/],
    ['rules-none', 'expectation_failed', 14, /^rules: expected no decision since the last expect, got \[\{"rule":"order-checked","action":"complete_work","step":"check-order","result":"matched","reason":"completes the task of step 'check-order'"\}/],
    ['memory', 'expectation_failed', 12, /^memory\.recalled: expected recalls by recall-history, got \[\]/],
    ['no-side-effects', 'expectation_failed', 12, /^noSideEffects: expected none, got calls of stock\.reserve@1/],
    ['refused', 'step_refused', 14, /the core refuses the vote of bob on 'approve-order': not_your_turn/],
    ['not-assignee', 'not_assignee', 12, /zed may not complete the task of step 'check-order'/],
    ['mock-missing', 'mock_missing', 4, /step 'call-stock' calls skill stock\.reserve@1, and the test has no answer for it/],
    ['mock-invalid', 'mock_output_invalid', 6, /breaks the skill's output schema: must have required property 'reservation'/],
    ['coverage', 'coverage_below_minimum', 3, /^coverage \d+(\.\d)?% is below the minimum 90%/],
  ])('%s', async (name, code, line, message) => {
    const { report } = await reportPromise;
    const test = report.tests.find((t) => t.file.endsWith(`/${name}.test.yaml`));
    expect(test?.status).toBe('failed');
    expect(test?.failure).toMatchObject({ code, line });
    expect(test?.failure?.message).toMatch(message);
  });
});
