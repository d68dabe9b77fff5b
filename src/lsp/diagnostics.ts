/** Findings of `check` as the protocol's diagnostics, file by file: the same codes, places and hints. */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { CheckReport } from '../check/index.js';
import type { Finding } from '../model/finding.js';
import { rangeOf } from './ranges.js';

export const SOURCE = 'package-sdk';

const SEVERITY: Record<Finding['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
};

/** What a diagnostic carries for the code actions: the finding's hint and the path it is about. */
export interface DiagnosticData {
  hint?: string;
  path: string;
}

/** The diagnostics of a report by the file they are in (as findings name it); silenced findings are left out. */
export function diagnosticsByFile(report: CheckReport, textOf: (file: string) => string | undefined): Map<string, Diagnostic[]> {
  const byFile = new Map<string, Diagnostic[]>();
  for (const finding of [...report.errors, ...report.warnings, ...report.notes]) {
    if (finding.suppressed) continue;
    const list = byFile.get(finding.file) ?? [];
    list.push(diagnosticOf(finding, textOf(finding.file)));
    byFile.set(finding.file, list);
  }
  return byFile;
}

export function diagnosticOf(finding: Finding, text: string | undefined): Diagnostic {
  const data: DiagnosticData = { path: finding.path, ...(finding.hint !== undefined ? { hint: finding.hint } : {}) };
  return {
    range: rangeOf(finding, text),
    severity: SEVERITY[finding.severity],
    code: finding.code,
    source: SOURCE,
    message: finding.hint === undefined ? finding.message : `${finding.message} (${finding.hint})`,
    data,
  };
}
