/**
 * What `test` shows, as reviewed files: the text report (a line per scenario, where a failing step is written
 * with expected and actual, coverage, the summary) and the JUnit XML of `--junit`, for the engine-demo
 * package with two failing scenarios of fixtures/sandbox/failing/ added; and the text when a package with
 * check errors runs no scenario. The library renders in process; the built CLI prints the same text once.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paintFor } from '../../src/report/paint.js';
import { renderJunit } from '../../src/report/test-junit.js';
import { renderTestText } from '../../src/report/test.js';
import { runTests } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { FIXTURES, overlay } from '../support/overlay.js';
import { once } from './support.js';

const PACKAGE = 'packages/engine-demo';
const failing = (name: string) => readFileSync(join(FIXTURES, 'sandbox/failing', `${name}.test.yaml`), 'utf8');
const taskType = readFileSync(join(FIXTURES, 'sandbox', PACKAGE, 'task-types/order-check.yaml'), 'utf8');

const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** engine-demo (in a directory named after it, as its key asks) with `files` laid over it. */
function engineDemo(files: Record<string, string>): string {
  const dir = overlay('sandbox', Object.fromEntries(Object.entries(files).map(([file, text]) => [join(PACKAGE, file), text])));
  copies.push(dir);
  return dir;
}

/** The report of `test packages/engine-demo` run in `dir`, and its text as `test` prints it. */
async function tested(dir: string) {
  const { report, workspace } = await runTests({ cwd: dir, paths: [PACKAGE] });
  const documents = workspace.documents();
  return { report, text: `${renderTestText(report, (file) => documents.get(file)?.text, paintFor({ isTTY: false }))}\n` };
}

describe('test report', () => {
  const failures = engineDemo({ 'tests/status.test.yaml': failing('status'), 'tests/mock-missing.test.yaml': failing('mock-missing') });
  const run = once(() => tested(failures));

  it('as text: passed and failed scenarios, expected against actual, coverage', async () => {
    await expect((await run()).text).toMatchFileSnapshot('snapshots/test/failures.txt');
  });

  it('as JUnit XML', async () => {
    await expect(renderJunit((await run()).report)).toMatchFileSnapshot('snapshots/test/failures.junit.xml');
  });

  it('as text when the package has check errors: the errors with their frames, no scenario run', async () => {
    const broken = engineDemo({ 'task-types/order-check.yaml': taskType.replace(/^spec:$/m, 'spec:\n  colour: blue') });
    await expect((await tested(broken)).text).toMatchFileSnapshot('snapshots/test/check-errors.txt');
  });

  it('the built CLI prints the same text', async () => {
    const { code, stdout } = await runCli(['test', PACKAGE], { cwd: failures });
    expect(code).toBe(1);
    expect(stdout).toBe((await run()).text);
  });
});
