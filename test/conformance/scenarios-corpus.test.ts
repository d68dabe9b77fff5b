/**
 * The scenarios of the corpus's packages pass in the sandbox engine — the claims installation, the settings,
 * SLA and test-pyramid fixtures, and the purchase process given as loose files — and the SLA fixture's on the
 * embedded core through the built CLI. Our own scenarios of the same behaviours are in test/sandbox/.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTests, type TestOptions } from '../../src/sandbox/index.js';
import { ROOT, runCli, scratchDir } from '../support/cli.js';
import { corpus } from './corpus.js';

const PROCESS = corpus('fixtures/process');

describe('the corpus scenarios that must pass', () => {
  it.each([
    ['claims', { install: corpus('claims/packages.yaml') }, 12],
    ['settings', { paths: [corpus('fixtures/settings/packages/claims-intake')] }, 2],
    ['sla', { paths: [corpus('fixtures/sla/packages/sla-demo')] }, 1],
    ['pyramid', { paths: [corpus('fixtures/pyramid/packages/review-flow')] }, 4],
    ['purchase (loose files)', { paths: ['purchase.process.yaml', 'ru.calendar.yaml', 'purchase.test.yaml'].map((f) => join(PROCESS, f)) }, 1],
  ])('%s', async (_name, options: TestOptions, count) => {
    const { report } = await runTests({ cwd: ROOT, ...options });
    expect(report.tests.filter((t) => t.status !== 'passed').map((t) => `${t.file}: ${t.failures.map((f) => f.message).join(' | ')}`)).toEqual([]);
    expect(report.passed).toBe(count);
    expect(report.ok).toBe(true);
  });
});

describe('package-sdk test --server local on the corpus', () => {
  const scratch = scratchDir('test-command-');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs the SLA fixture on the embedded core', async () => {
    const out = await runCli(['test', corpus('fixtures/sla/packages/sla-demo'), '--server', 'local', '--json'], { cwd: scratch });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, passed: 1, tests: [{ name: 'the review is late, the process is in time', status: 'passed' }] });
  });
});
