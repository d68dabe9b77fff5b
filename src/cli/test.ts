/**
 * What `package-sdk test` does between parsing flags and printing: run locally or on a server, write the JUnit
 * file (temp file, then rename), and pick the exit code. Problems with the input end as a message and exit 2.
 */
import { rename, writeFile } from 'node:fs/promises';
import { paintFor } from '../report/paint.js';
import { renderJunit } from '../report/test-junit.js';
import { renderTestText } from '../report/test.js';
import { runTests, type TestOptions, type TestReport } from '../sandbox/index.js';
import { localCore } from './local-core.js';

export interface TestCommandOptions extends TestOptions {
  server?: string;
  junit?: string;
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
    const { runTestsOnServer } = await import('../sandbox/remote.js');
    report = await runTestsOnServer({ ...options, server: options.server, localCore });
  } else {
    const result = await runTests(options);
    report = result.report;
    sources = new Map([...result.workspace.documents()].map(([file, document]) => [file, document.text]));
  }
  if (options.junit !== undefined) {
    const temp = `${options.junit}.${process.pid}.tmp`;
    await writeFile(temp, renderJunit(report));
    await rename(temp, options.junit);
  }
  const loadOnly = report.tests.length === 0 && report.problems.some((p) => ['package_not_found', 'read_failed'].includes(p.code));
  return {
    report,
    exitCode: loadOnly ? 2 : report.ok ? 0 : 1,
    text: () => renderTestText(report, (file) => sources.get(file), paintFor(process.stdout)),
  };
}
