import type { CheckReport } from '../check/index.js';
import type { Finding } from '../model/finding.js';
import type { Paint } from './paint.js';
import { renderFinding } from './text.js';

/** The text of `check`: notes, warnings, then errors, each with its frame, then one summary line. */
export function renderCheckText(report: CheckReport, sourceOf: (file: string) => string | undefined, paint: Paint): string {
  const findings = [...report.notes, ...report.warnings, ...report.errors, ...report.suppressed];
  const blocks = findings.map((finding) => renderFinding(finding, sourceOf(finding.file), paint));
  blocks.push(summaryLine(report, paint));
  return blocks.join('\n\n');
}

export function summaryLine(report: CheckReport, paint: Paint): string {
  const counted = `packages ${report.packages}, objects ${report.objects}, tests ${report.tests}`;
  const suppressed = report.suppressed.length > 0 ? `, ${plural(report.suppressed.length, 'finding')} suppressed` : '';
  const besides = [
    ...(report.warnings.length > 0 ? [plural(report.warnings.length, 'warning')] : []),
    ...(report.notes.length > 0 ? [plural(report.notes.length, 'note')] : []),
  ];
  if (report.ok) return `${paint.bold('ok')}: ${counted}${besides.length > 0 ? ` (${besides.join(', ')})` : ''}${suppressed}`;
  return `${paint.error('failed')}: ${[plural(report.errors.length, 'error'), ...besides].join(', ')}${suppressed} — ${counted}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Every finding of a report in file order, for machine formats. */
export function allFindings(report: CheckReport): Finding[] {
  return [...report.errors, ...report.warnings, ...report.notes, ...report.suppressed];
}
