/**
 * What `package-sdk test` does between parsing flags and printing: run locally or on a server, write the JUnit
 * file (temp file, then rename), and pick the exit code. Problems with the input end as a message and exit 2.
 *
 * Shared by the oclif command (src/commands/test.ts) and the lean entry that bin/run.js takes for a plain
 * `test` run in process: CI runs it on every push, and loading the command framework costs more than the
 * scenarios of a package. Anything the lean entry does not fully understand — help, `--server`, a flag it
 * does not know, a refusal to print — goes to the full command.
 */
import { replaceFile } from '../fs/write.js';
import { parseArgs } from 'node:util';
import { paintFor } from '../report/paint.js';
import { renderJunit } from '../report/test-junit.js';
import { renderTestText } from '../report/test.js';
import { runTests, type TestOptions, type TestReport } from '../sandbox/index.js';
import { TARGET_FLAGS, targetsOf, useCheckCache } from './check.js';

export interface TestCommandOptions extends TestOptions {
  server?: string;
  junit?: string;
  /** Reuse what earlier runs (of `check` or `test`) learnt of unchanged files; the default. */
  cache?: boolean;
}

export interface TestOutcome {
  report: TestReport;
  exitCode: number;
  text(): string;
}

export async function runTestCommand(options: TestCommandOptions): Promise<TestOutcome> {
  let report: TestReport;
  let sources: Map<string, string> = new Map();
  if (options.server !== undefined) {
    const [{ runTestsOnServer }, { localCore }] = await Promise.all([import('../sandbox/remote.js'), import('./local-core.js')]);
    report = await runTestsOnServer({ ...options, server: options.server, localCore });
  } else {
    if (options.cache !== false) await useCheckCache();
    const result = await runTests(options);
    report = result.report;
    sources = new Map([...result.workspace.documents()].map(([file, document]) => [file, document.text]));
  }
  if (options.junit !== undefined) {
    await replaceFile(options.junit, renderJunit(report));
  }
  const loadOnly = report.tests.length === 0 && report.problems.some((p) => ['package_not_found', 'read_failed'].includes(p.code));
  return {
    report,
    exitCode: loadOnly ? 2 : report.ok ? 0 : 1,
    text: () => renderTestText(report, (file) => sources.get(file), paintFor(process.stdout)),
  };
}

/**
 * The lean entry: runs a `test` in process that it fully understands and returns its exit code, or undefined
 * when the full command should handle the invocation (it then prints nothing).
 */
export async function runTestFast(argv: readonly string[]): Promise<number | undefined> {
  const request = parseTestArgs(argv);
  if (request === undefined) return undefined;
  let outcome: TestOutcome;
  try {
    outcome = await runTestCommand(request.options);
  } catch (error) {
    if (typeof (error as { code?: unknown }).code === 'string') return undefined; // a refusal: the full command prints it
    throw error;
  }
  process.stdout.write(`${request.json ? JSON.stringify(outcome.report, null, 2) : outcome.text()}\n`);
  return outcome.exitCode;
}

function parseTestArgs(argv: readonly string[]): { options: TestCommandOptions; json: boolean } | undefined {
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { ...TARGET_FLAGS, test: { type: 'string' }, junit: { type: 'string' } },
    });
    return {
      options: {
        ...targetsOf(values),
        ...(values.test !== undefined ? { test: values.test } : {}),
        ...(values.junit !== undefined ? { junit: values.junit } : {}),
        paths: positionals,
      },
      json: values.json ?? false,
    };
  } catch {
    return undefined;
  }
}
