/**
 * The findings of the core's package routes (`ProcessProblemOut`, compat-core-packages §2.8): the same shape
 * from `/packages:test`, `/packages:plan` and `/packages:apply`, located by file and the line of the pointer
 * (or of its nearest parent written in the file), and sorted as the core sorts them.
 */
import type { PackageProblem } from '../contract/packages.js';
import type { SourceDocument } from '../json/document.js';
import { byCodePoint, byText } from '../json/canonical.js';

export type Problem = PackageProblem;

export interface ProblemOptions {
  severity?: 'error' | 'warning';
  hint?: string;
}

/** A problem at `pointer` of a parsed file. */
export function problemIn(document: SourceDocument, code: string, pointer: string, message: string, options: ProblemOptions = {}): Problem {
  return { code, severity: options.severity ?? 'error', path: pointer, file: document.file, line: document.locate(pointer).line, message, hint: options.hint ?? null };
}

/** A problem of a file that could not be parsed, or of no file at all (`file` null). */
export function problemAt(file: string | null, line: number | null, code: string, pointer: string, message: string, options: ProblemOptions = {}): Problem {
  return { code, severity: options.severity ?? 'error', path: pointer, file, line, message, hint: options.hint ?? null };
}

export function isErrorProblem(problem: Problem): boolean {
  return problem.severity === 'error';
}

/** The core's order: errors first, then by file, line, path and code (texts by code points, as the core sorts). */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      Number(b.severity === 'error') - Number(a.severity === 'error') ||
      byCodePoint(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      byCodePoint(a.path, b.path) ||
      byText(a.code, b.code),
  );
}

/**
 * One finding per code and place, whichever pass found it first: the core's reading of the files and the
 * checks of `check` may both report a mistake (a duplicate object, a test without its subject).
 */
export function withoutRepeats(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const id = `${problem.code}\u0000${problem.file ?? ''}\u0000${problem.path}`;
    return !seen.has(id) && Boolean(seen.add(id));
  });
}
