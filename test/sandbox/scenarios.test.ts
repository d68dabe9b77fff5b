/**
 * Package scenarios run in the sandbox engine: our fixtures' must pass — the example (as packages and as its
 * installation), a package over the package it requires with settings, rules and task types, deadlines in
 * working time, a richer process given as loose files, the engine's own fixture of every step kind, and the
 * fixture of what the core's engine does where this engine once did otherwise; a failing scenario of each
 * `expect` field says what failed and where, and a failed `expect` does not stop its scenario.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import { catalogOfLooseFiles, runTests, type TestOptions } from '../../src/sandbox/index.js';
import { runScenario } from '../../src/sandbox/scenario.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const ROOT = join(import.meta.dirname, '../..');
const PACKAGES = join(FIXTURES, 'sandbox/packages');
const RENEWAL = join(FIXTURES, 'sandbox/renewal');
const UNCHECKED = join(FIXTURES, 'sandbox/unchecked');

async function outcomes(options: TestOptions) {
  const { report } = await runTests({ cwd: ROOT, ...options });
  return report;
}

/** The renewal process, its calendar and skills and every scenario of it, as loose files. */
const renewalFiles = () => readdirSync(RENEWAL).sort().map((file) => join(RENEWAL, file));

describe('scenarios that must pass', () => {
  it.each([
    ['settings, rules and task types over a required package', { paths: [join(PACKAGES, 'hire-returns')] }, 10],
    ['deadlines in working time', { paths: [join(PACKAGES, 'workshop-deadlines')] }, 3],
    ['a richer process (loose files)', { paths: renewalFiles() }, 7],
    ['the bundled example', { paths: [join(FIXTURES, 'example/packages/field-maintenance')] }, 6],
    ['the bundled example, by its installation', { install: join(FIXTURES, 'example/packages.yaml') }, 6],
    ['the engine fixture', { paths: [join(PACKAGES, 'engine-demo')] }, 7],
    ['the core engine\'s semantics', { paths: [join(PACKAGES, 'core-engine')] }, 13],
  ])('%s', async (_name, options, count) => {
    const report = await outcomes(options);
    expect(report.tests.filter((t) => t.status !== 'passed').map((t) => `${t.file}: ${t.failures.map((f) => f.message).join(' | ')}`)).toEqual([]);
    expect(report.passed).toBe(count);
    expect(report.ok).toBe(true);
  });

  it('reports coverage per process from all its tests', async () => {
    const report = await outcomes({ paths: [join(PACKAGES, 'engine-demo')] });
    expect(report.coverage).toEqual([expect.objectContaining({
      process: 'order', total: 30, covered: 28, missed: ['intake-reminder', 'remind-intake'],
      transitions: { covered: 13, total: 13, percent: 100, missed: [] },
      decisionRows: { covered: 4, total: 4, percent: 100, missed: [] },
      handlers: { covered: 7, total: 7, percent: 100, missed: [] },
    })]);
    const loose = await outcomes({ paths: renewalFiles() });
    expect(loose.coverage).toEqual([{
      process: 'machine-renewal', version: 2, total: 24, covered: 24, percent: 100, missed: [],
      transitions: { covered: 14, total: 15, percent: 93.3, missed: ['approve-budget:rejected'] },
      decisionRows: { covered: 2, total: 2, percent: 100, missed: [] },
      handlers: { covered: 5, total: 5, percent: 100, missed: [] },
    }]);
  });

  it('raises decision_ambiguous for a unique table whose rules overlap (a process check refuses, so it runs unchecked)', async () => {
    const files = readdirSync(UNCHECKED).filter((file) => file.endsWith('.yaml')).map((file) => join(UNCHECKED, file));
    const workspace = await loadTargets({ cwd: ROOT, paths: files });
    const test = workspace.files.find((file) => file.role === 'test')!;
    const result = await runScenario(test.document, catalogOfLooseFiles(workspace), undefined);
    expect(result).toMatchObject({ status: 'passed', failures: [] });
  });

  // The engine evaluates through src/cel: RE2 `matches()` and `getHours()` at a fixed offset, as the core's CEL.
  it('evaluates a regular expression in RE2 syntax and the hours of a fixed offset, as the core\'s CEL does', async () => {
    const report = await outcomes({ paths: [join(PACKAGES, 'cel-runtime')] });
    expect(report.tests.map((t) => [t.status, t.failures.map((f) => f.message)])).toEqual([['passed', []]]);
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
    expect(missing.tests.every((t) => t.status === 'error' && t.failures[0]?.code === 'check_failed')).toBe(true);
  });

  it('refuses settings a scenario saves that break the settings schema of the package', async () => {
    const dir = overlay('sandbox/packages', {
      'hire-returns/tests/bad-settings.test.yaml': 'process: machine-return\nname: a negative threshold\nsteps:\n  - settings: {reviewThreshold: -5}\n',
    });
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const report = await outcomes({ paths: [join(dir, 'hire-returns')], test: 'a negative threshold' });
    expect(report.tests).toMatchObject([{ status: 'failed', failures: [{ code: 'settings_invalid', line: 4 }] }]);
    expect(report.tests[0]!.failures[0]!.message).toMatch(/^the settings do not match the package settings schema: .*reviewThreshold/);
  });
});

/** A package with the failing scenarios of `failing` as its only tests, and their report. */
function failingRun(pkgName: string, failing: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-failing-'));
  const pkg = join(dir, pkgName);
  cpSync(join(PACKAGES, pkgName), pkg, { recursive: true });
  rmSync(join(pkg, 'tests'), { recursive: true });
  cpSync(join(ROOT, 'fixtures/sandbox', failing), join(pkg, 'tests'), { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return runTests({ cwd: dir, paths: [pkgName] });
}

describe('failing scenarios say what failed and where', () => {
  const reportPromise = failingRun('engine-demo', 'failing');

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
    ['events', 'expectation_failed', 12, /^events: expected \["process\.completed"\] among the events since the last expect, missing \["process\.completed"\]; got \["process\.started"/],
    ['rules', 'expectation_failed', 13, /^rules: expected a decision \{"rule":"order-checked","step":"check-order","result":"matched"\}, decisions since the last expect: \[\{"rule":"order-checked","action":"complete_work","step":"check-order","result":"not_matched"\}\]$/],
    ['rules-none', 'expectation_failed', 14, /^rules: expected no decision since the last expect, got \[\{"rule":"order-checked","action":"complete_work","step":"check-order","result":"matched"\}\]$/],
    ['memory', 'expectation_failed', 12, /^memory\.recalled: expected recalls answered for recall-history, got \[\]/],
    ['no-side-effects', 'expectation_failed', 12, /^noSideEffects: expected none, got calls of stock\.reserve@1/],
    ['refused', 'step_refused', 14, /the core refuses the vote of bob on 'approve-order': not_eligible/],
    ['not-assignee', 'not_assignee', 12, /zed may not complete the task of step 'check-order'/],
    ['mock-missing', 'step_not_waiting', 7, /^step 'check-order' has no open task; open tasks: none; step 'call-stock' waits for skill stock\.reserve@1, which the test does not answer \(mocks\.skills\)$/],
    ['mock-invalid', 'mock_output_invalid', 6, /breaks the skill's output schema: must have required property 'reservation'/],
    ['coverage', 'coverage_below_minimum', 3, /^coverage of elements \d+(\.\d)?% is below the minimum 90%/],
  ])('%s', async (name, code, line, message) => {
    const { report } = await reportPromise;
    const test = report.tests.find((t) => t.file.endsWith(`/${name}.test.yaml`));
    expect(test?.status).toBe('failed');
    expect(test?.failures).toHaveLength(1);
    expect(test?.failures[0]).toMatchObject({ code, line });
    expect(test?.failures[0]?.message).toMatch(message);
  });
});

describe('failing scenarios of the core\'s semantics', () => {
  const reportPromise = failingRun('core-engine', 'failing-core');
  const failuresOf = async (name: string) => (await reportPromise).report.tests.find((t) => t.file.endsWith(`/${name}.test.yaml`))?.failures;

  it('a failed expect does not stop the scenario: every failure is reported, and the steps after it run', async () => {
    const { report } = await reportPromise;
    const test = report.tests.find((t) => t.file.endsWith('/expects-go-on.test.yaml'));
    expect(test).toMatchObject({ status: 'failed', steps: 5 });
    expect(test?.failures.map((f) => [f.step, f.code, f.path])).toEqual([
      [2, 'expectation_failed', '/steps/1/expect/stages'],
      [4, 'expectation_failed', '/steps/3/expect/data'],
      [4, 'expectation_failed', '/steps/3/expect/tasks'],
    ]);
  });

  it('a step skipped by its guard says which guard was false, with the values it read', async () => {
    expect(await failuresOf('skipped')).toMatchObject([{
      code: 'step_not_waiting', step: 3, line: 8,
      message: "step 'call-customer' has no open task; it was skipped: its when `data.escalate` was false (data.escalate = false); open tasks: none",
    }]);
  });

  it.each([
    ['given-stage', '/given/stage', /^given\.stage is not supported/],
    ['given-from-instance', '/given/fromInstance', /^given\.fromInstance continues a copy of a live instance .* cannot run offline/],
  ])('%s is refused', async (name, path, message) => {
    const failures = await failuresOf(name);
    expect(failures).toMatchObject([{ code: 'given_not_supported', path, line: 4 }]);
    expect(failures?.[0]?.message).toMatch(message);
  });
});
