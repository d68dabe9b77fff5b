/**
 * The text report of `package-sdk test`: one line per test, and for a failing one where the scenario step is
 * written (`file:line:col`), what failed, expected against actual; then coverage per process and a summary.
 */
import type { TestReport, TestResult } from '../sandbox/index.js';
import type { Paint } from './paint.js';
import { renderFinding } from './text.js';

export function renderTestText(report: TestReport, sourceOf: (file: string) => string | undefined, paint: Paint): string {
  const out: string[] = [];
  for (const problem of report.problems) out.push(renderFinding(problem, sourceOf(problem.file), paint), '');
  for (const test of report.tests) out.push(...renderTest(test, paint));
  if (report.coverage.length > 0) {
    out.push('');
    for (const c of report.coverage) {
      const missed = c.missed.length === 0 ? '' : paint.dim(` — not reached: ${c.missed.join(', ')}`);
      out.push(`coverage ${c.package === undefined ? '' : `${c.package}/`}${c.process}: ${c.percent}% (${c.covered}/${c.total})${missed}`);
    }
  }
  out.push('', testSummary(report, paint));
  return out.join('\n');
}

function renderTest(test: TestResult, paint: Paint): string[] {
  const mark = test.status === 'passed' ? paint.added('✓') : paint.error(test.status === 'failed' ? '✗' : '!');
  const lines = [`${mark} ${test.name} ${paint.dim(`(${test.subject} ${test.target}, ${test.file})`)}`];
  for (const failure of test.failures) {
    const where = failure.line === undefined ? test.file : `${test.file}:${failure.line}:${failure.column ?? 1}`;
    const step = failure.step === undefined ? '' : ` (step ${failure.step})`;
    lines.push(`    ${where}: ${paint.error(failure.code)}${step}: ${failure.message}`);
    if ('expected' in failure) lines.push(`      expected: ${JSON.stringify(failure.expected)}`);
    if ('actual' in failure) lines.push(`      actual:   ${JSON.stringify(failure.actual)}`);
  }
  return lines;
}

export function testSummary(report: TestReport, paint: Paint): string {
  const parts = [`${report.passed} passed`, `${report.failed} failed`];
  if (report.errors > 0) parts.push(`${report.errors} not run`);
  const line = parts.join(', ');
  return report.ok ? paint.added(line) : paint.error(line);
}
