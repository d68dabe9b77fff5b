/**
 * The page of a test run (`test --html`): one self-contained HTML file — the summary, the check errors that
 * kept scenarios from running, every scenario with its failure (where it is written, expected against actual),
 * and the coverage drawn on each process tested: what the scenarios reached green, the rest orange.
 */
import type { TestReport, TestResult } from '../sandbox/index.js';
import { processSection, type DrawnProcess } from './graph-html.js';
import { escapeHtml, htmlPage, jsonBlock } from './page-html.js';

export function renderTestHtml(report: TestReport, processes: readonly DrawnProcess[], title = 'Package tests'): string {
  const summary = [`${report.passed} passed`, `${report.failed} failed`, ...(report.errors > 0 ? [`${report.errors} not run`] : [])].join(', ');
  const body = [`<h1>${escapeHtml(title)}</h1>`, `<div class="summary ${report.ok ? 'ok' : 'bad'}">${escapeHtml(summary)}</div>`];
  if (report.problems.length > 0) {
    body.push('<h2>Check errors</h2>', ...report.problems.map((problem) =>
      `<div class="box error"><b>${escapeHtml(problem.code)}</b> <span class="dim">${escapeHtml(`${problem.file}:${problem.line}:${problem.column}`)}</span>: ${escapeHtml(problem.message)}</div>`));
  }
  body.push('<h2>Scenarios</h2>', ...report.tests.map(testHtml));
  if (report.coverage.length > 0) {
    body.push('<h2>Coverage</h2>');
    for (const coverage of report.coverage) {
      const missed = coverage.missed.length === 0 ? '' : ` — not reached: ${coverage.missed.join(', ')}`;
      body.push(`<div class="box coverage"><b>${escapeHtml(`${coverage.package === undefined ? '' : `${coverage.package}/`}${coverage.process}`)}</b>: ${coverage.percent}% (${coverage.covered}/${coverage.total})${escapeHtml(missed)}</div>`);
    }
    body.push(...processes.map(processSection));
  }
  return htmlPage(title, body.join('\n'));
}

function testHtml(test: TestResult): string {
  const mark = test.status === 'passed' ? '<span class="ok">✓</span>' : `<span class="bad">${test.status === 'failed' ? '✗' : '!'}</span>`;
  const out = [`<div class="box test ${test.status}">${mark} <b class="name">${escapeHtml(test.name)}</b> <span class="dim">(${escapeHtml(`${test.subject} ${test.target}, ${test.file}`)})</span>`];
  for (const failure of test.failures) {
    const where = failure.line === undefined ? test.file : `${test.file}:${failure.line}:${failure.column ?? 1}`;
    out.push(`<div><code>${escapeHtml(where)}</code>: <b>${escapeHtml(failure.code)}</b>${failure.step === undefined ? '' : ` (step ${failure.step})`}: ${escapeHtml(failure.message)}</div>`);
    if ('expected' in failure || 'actual' in failure) {
      out.push(`<table class="values"><tr><th>expected</th><th>actual</th></tr><tr><td>${jsonBlock(failure.expected)}</td><td>${jsonBlock(failure.actual)}</td></tr></table>`);
    }
  }
  out.push('</div>');
  return out.join('\n');
}
