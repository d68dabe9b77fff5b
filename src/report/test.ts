/**
 * The text report of `package-sdk test`: one line per test, and for a failing one each failure — where the
 * scenario step is written (`file:line:col`), what failed, expected against actual; then coverage per process
 * (elements, transitions, decision rows, handlers), work rule and task type; and a summary.
 */
import type { CoverageCount, TestReport, TestResult } from '../sandbox/index.js';
import type { Paint } from './paint.js';
import { renderFinding } from './text.js';

export function renderTestText(report: TestReport, sourceOf: (file: string) => string | undefined, paint: Paint): string {
  const out: string[] = [];
  for (const problem of report.problems) out.push(renderFinding(problem, sourceOf(problem.file), paint), '');
  for (const test of report.tests) out.push(...renderTest(test, paint));
  const coverage = [
    ...report.coverage.map((c) => coverageLines(`${c.package === undefined ? '' : `${c.package}/`}${c.process}`, { elements: c, transitions: c.transitions, 'decision rows': c.decisionRows, handlers: c.handlers }, paint)),
    ...report.ruleCoverage.map((c) => coverageLines(`rule ${c.package === undefined ? '' : `${c.package}/`}${c.rule}`, { outcomes: c.outcomes, branches: c.branches }, paint, c.tests)),
    ...report.taskTypeCoverage.map((c) => coverageLines(`task type ${c.package === undefined ? '' : `${c.package}/`}${c.taskType}`, { outcomes: c.outcomes, preconditions: c.preconditions, completion: c.completion, acceptance: c.acceptance }, paint, c.tests)),
  ];
  if (coverage.length > 0) out.push('', ...coverage.flat());
  out.push('', testSummary(report, paint));
  return out.join('\n');
}

/** `coverage <subject>: elements 93.3% (28/30), transitions 100% (13/13), …` and, dimmed, what was not reached. */
function coverageLines(subject: string, kinds: Record<string, CoverageCount>, paint: Paint, tests?: number): string[] {
  const counted = Object.entries(kinds).filter(([, c]) => c.total > 0);
  const counts = counted.map(([kind, c]) => `${kind} ${c.percent}% (${c.covered}/${c.total})`).join(', ');
  const of = tests === undefined ? '' : ` — ${tests} test${tests === 1 ? '' : 's'}`;
  const missed = counted.filter(([, c]) => c.missed.length > 0).map(([kind, c]) => `${kind}: ${c.missed.join(', ')}`);
  return [`coverage ${subject}: ${counts || 'nothing to cover'}${of}`, ...(missed.length === 0 ? [] : [paint.dim(`    not reached — ${missed.join('; ')}`)])];
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
