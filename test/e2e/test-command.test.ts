/**
 * `package-sdk test` through the built CLI, a few runs for what only the command does: the text report and
 * exit codes, `--json`, and `--server local` (the embedded core answers POST /packages:test with the sandbox),
 * which refuses a `--test` no test answers to as the in-process run does.
 * The rest of the command's work runs in process in test/sandbox/command.test.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, scratchDir } from '../support/cli.js';

const DEADLINES = join(ROOT, 'fixtures/sandbox/packages/workshop-deadlines');

describe('package-sdk test', () => {
  const scratch = scratchDir('test-command-');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes the example and exits 0', async () => {
    const out = await runCli(['test', 'fixtures/example/packages/field-maintenance']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('✓ costly parts rejected by a stores manager defer the repair');
    expect(out.stdout.trim().split('\n').at(-1)).toBe('6 passed, 0 failed');
  });

  it('refuses a --test that names no test, on the embedded core too (exit 2)', async () => {
    const out = await runCli(['test', DEADLINES, '--server', 'local', '--test', 'nosuch'], { cwd: scratch });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("no test is named 'nosuch'");
  });

  it('runs on the embedded core with --server local and prints the JSON report', async () => {
    const out = await runCli(['test', DEADLINES, '--server', 'local', '--json'], { cwd: scratch });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ok: true, passed: 3,
      tests: [
        { name: 'a repair booked in after hours is due from the next working morning and done in time', status: 'passed' },
        { name: 'a late repair goes to the workshop lead, the case warns in time', status: 'passed' },
        { name: 'a worked Saturday counts for the deadline', status: 'passed' },
      ],
    });
  });
});
