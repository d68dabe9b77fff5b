import type { SourceDocument, Span } from '../json/document.js';
import type { Finding } from '../model/finding.js';

/** A file loaded, or the findings of why it could not be. */
export interface LoadResult {
  /** Undefined when the file could not be read or parsed at all. */
  document?: SourceDocument;
  findings: Finding[];
}

/** A load problem: always an error, placed at `span` of `file`. */
export function loadError(
  code: string,
  file: string,
  span: Span,
  path: string,
  message: string,
  hint?: string,
): Finding {
  const finding: Finding = { code, severity: 'error', message, file, path, ...span };
  if (hint !== undefined) finding.hint = hint;
  return finding;
}

/** The 1-based line and column of a character offset, given the offsets where lines start. */
export function positionAt(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - lineStarts[low]! + 1 };
}

/** Offsets where each line of `text` starts (after `\n`, `\r\n` or a lone `\r`). */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}

/** The span from offset `start` to offset `end` (exclusive). */
export function spanOf(lineStarts: readonly number[], start: number, end: number): Span {
  const from = positionAt(lineStarts, start);
  const to = positionAt(lineStarts, Math.max(start, end));
  return { line: from.line, column: from.column, endLine: to.line, endColumn: to.column };
}
