/**
 * What `check` returns, and what `check --json` prints: every finding of the load, stage 1 and the rules,
 * in file order, each silenced one marked (never dropped), and what was checked.
 */
import type { SourceDocument } from '../json/document.js';
import { isError, type Finding } from './finding.js';
import type { Workspace } from './workspace.js';

export interface CheckReport {
  ok: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** What was not checked, and why (an object the core's checks skip): never counted, never silenced. */
  notes: Finding[];
  /** Findings silenced by `# package-sdk-disable-next-line <code>`: reported, never silent. */
  suppressed: Finding[];
  packages: number;
  objects: number;
  tests: number;
}

/** The report of `findings` over `workspace`. */
export function checkReport(workspace: Workspace, findings: readonly Finding[]): CheckReport {
  const documents = workspace.documents();
  const marked = findings.map((finding) => markSuppressed(finding, documents.get(finding.file)));
  marked.sort(byPlace);
  const errors = marked.filter(isError);
  return {
    ok: errors.length === 0,
    errors,
    warnings: marked.filter((f) => f.severity === 'warning' && !f.suppressed),
    notes: marked.filter((f) => f.severity === 'note' && !f.suppressed),
    suppressed: marked.filter((f) => f.suppressed),
    packages: workspace.packages.length,
    objects: workspace.packages.reduce((n, pkg) => n + pkg.objects.length, 0) + workspace.files.filter((f) => f.role === 'object').length,
    tests: workspace.packages.reduce((n, pkg) => n + pkg.tests.length, 0) + workspace.files.filter((f) => f.role === 'test').length,
  };
}

function markSuppressed(finding: Finding, document: SourceDocument | undefined): Finding {
  const codes = document?.suppressions.get(finding.line);
  return codes?.includes(finding.code) ? { ...finding, suppressed: true } : finding;
}

function byPlace(a: Finding, b: Finding): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code);
}
