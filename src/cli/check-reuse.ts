/**
 * The first step of a plain `check`: when the workspace index holds a report for the targets that still
 * stands (nothing changed, or only comments), it is printed without loading the checking code at all.
 * bin/run.js runs this from a bundle of its own, a fifth of check's: a pre-commit hook or an editor asks
 * mostly about unchanged packages, and loading the rules would cost as much as the rest of such a run.
 */
import type { IndexLook } from '../load/parse-cache.js';
import { filtered, parseCheckArgs, printed, renderedOutcome, startResidentAfter, storedReport, type CheckRequest } from './check.js';

/**
 * Prints the stored report and returns the exit status, or returns undefined (nothing printed) when there is
 * none to reuse, or the arguments ask for more than a stored report answers: the full job runs then. When the
 * index was asked and had no report that stands, `seen` gets what it saw: the full job need not ask again, nor
 * stat again what was stat'ed.
 */
export async function runReusedCheckFast(argv: readonly string[], version: string, seen?: (look: IndexLook) => void): Promise<number | undefined> {
  const asked = parseCheckArgs(argv);
  if (!asked || !answersFromIndex(asked)) return undefined;
  const { request, staged, index, reused } = await storedReport(asked);
  if (reused === undefined) {
    if (index) seen?.(index.look());
    return undefined;
  }
  const exitCode = printed(request, await renderedOutcome(request, { report: await filtered(request, reused, staged) }, version));
  await startResidentAfter(argv, request, reused);
  return exitCode;
}

/** The list of codes, --schema-only and SARIF read the catalog of every rule: the full job's. */
function answersFromIndex(asked: CheckRequest): boolean {
  return asked.cache && !asked.listRules && !asked.schemaOnly && asked.format !== 'sarif';
}
