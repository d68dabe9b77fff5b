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
  const notes = report.notes.length > 0 ? `, ${plural(report.notes.length, 'note')}` : '';
  const suppressed = `${notes}${report.suppressed.length > 0 ? `, ${plural(report.suppressed.length, 'finding')} suppressed` : ''}`;
  if (report.ok) {
    const warnings = report.warnings.length > 0 ? ` (${plural(report.warnings.length, 'warning')})` : '';
    return `${paint.bold('ok')}: ${counted}${warnings}${suppressed}`;
  }
  const warnings = report.warnings.length > 0 ? `, ${plural(report.warnings.length, 'warning')}` : '';
  return `${paint.error('failed')}: ${plural(report.errors.length, 'error')}${warnings}${suppressed} — ${counted}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Every finding of a report in file order, for machine formats. */
export function allFindings(report: CheckReport): Finding[] {
  return [...report.errors, ...report.warnings, ...report.notes, ...report.suppressed];
}
