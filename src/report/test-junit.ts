/**
 * JUnit XML of a test report, for CI systems that show test results (`test --junit FILE`): one testsuite per
 * package (or the loose files), one testcase per scenario, a failure or error element with the step's place.
 */
import type { TestReport, TestResult } from '../sandbox/index.js';

export function renderJunit(report: TestReport): string {
  const suites = new Map<string, TestResult[]>();
  for (const test of report.tests) {
    const key = test.package ?? 'files';
    suites.set(key, [...(suites.get(key) ?? []), test]);
  }
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(`<testsuites name="package-sdk test" tests="${report.tests.length}" failures="${report.failed}" errors="${report.errors}">`);
  for (const [name, tests] of suites) {
    const failures = tests.filter((t) => t.status === 'failed').length;
    const errors = tests.filter((t) => t.status === 'error').length;
    out.push(`  <testsuite name="${xml(name)}" tests="${tests.length}" failures="${failures}" errors="${errors}">`);
    for (const test of tests) {
      const open = `    <testcase classname="${xml(`${name}.${test.subject}.${test.target}`)}" name="${xml(test.name)}" file="${xml(test.file)}"`;
      const first = test.failures[0];
      if (first === undefined) {
        out.push(`${open}/>`);
        continue;
      }
      // One failure element per test case (CI systems show one); its body lists every failure of the scenario.
      const element = test.status === 'failed' ? 'failure' : 'error';
      const body = test.failures.flatMap((failure) => {
        const lines = [`${test.file}:${failure.line ?? 1}:${failure.column ?? 1}: ${failure.code}: ${failure.message}`];
        if ('expected' in failure) lines.push(`  expected: ${JSON.stringify(failure.expected)}`);
        if ('actual' in failure) lines.push(`  actual: ${JSON.stringify(failure.actual)}`);
        return lines;
      });
      out.push(`${open}>`, `      <${element} type="${xml(first.code)}" message="${xml(first.message)}">${xml(body.join('\n'))}</${element}>`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function xml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}
