/** Places of the library (1-based lines and columns, end exclusive) as the protocol's ranges (0-based). */
import type { Location, Range } from 'vscode-languageserver';
import { pathToFileURL } from 'node:url';
import type { Span } from '../json/document.js';

export function rangeOf(span: Span, text?: string): Range {
  const start = { line: span.line - 1, character: span.column - 1 };
  if (span.endLine !== undefined && span.endColumn !== undefined) return { start, end: { line: span.endLine - 1, character: span.endColumn - 1 } };
  return { start, end: { line: start.line, character: start.character + tokenLength(text, span) } };
}

/** The length of the word at a place with no end: what a finding points at when it names no extent. */
function tokenLength(text: string | undefined, span: Span): number {
  const line = text?.split('\n')[span.line - 1] ?? '';
  const match = /^[^\s,:{}[\]]+/.exec(line.slice(span.column - 1));
  return match ? match[0].length : 0;
}

export function locationOf(path: string, span: Span, text?: string): Location {
  return { uri: uriOf(path), range: rangeOf(span, text) };
}

export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}
