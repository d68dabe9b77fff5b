/**
 * Installation variables `${NAME}` (compat-package-sdk-check.md §1.5). The model keeps raw values:
 * substitution belongs to plan and check, which also decide what is declared and what is unused.
 */
import type { SourceDocument } from '../json/document.js';
import { childPointer } from '../json/pointer.js';
import type { Span } from '../json/document.js';

export const VARIABLE_PATTERN = /\$\{([A-Z][A-Z0-9_]*)\}/g;

/** One `${NAME}` written in a string of a document. */
export interface VariableUse {
  name: string;
  /** JSON Pointer of the string that holds it. */
  pointer: string;
  /** Offset of `$` in the parsed string. */
  offset: number;
  /** Where `${NAME}` is written in the file. */
  span: Span;
}

/**
 * Every `${NAME}` inside the strings under `root` of `document` (default `/spec`, where the reference
 * looks), in document order, with where it is written. Mapping keys are not searched.
 */
export function findVariables(document: SourceDocument, root = '/spec'): VariableUse[] {
  const uses: VariableUse[] = [];
  forEachVariable(document.value, (match, pointer) => {
    const first = document.locateInScalar(pointer, match.index);
    const last = document.locateInScalar(pointer, match.index + match[0].length - 1);
    uses.push({
      name: match[1]!,
      pointer,
      offset: match.index,
      span: { line: first.line, column: first.column, endLine: last.endLine ?? last.line, endColumn: last.endColumn ?? last.column + 1 },
    });
  }, root);
  return uses;
}

/**
 * Calls `visit` with each `${NAME}` match inside the strings under `root` of `value` and the pointer of its
 * string, in document order — what `findVariables` places, for a reader that needs only the names.
 */
export function forEachVariable(value: unknown, visit: (match: RegExpExecArray, pointer: string) => void, root = '/spec'): void {
  const walk = (node: unknown, pointer: string): void => {
    if (typeof node === 'string') {
      if (node.includes('${')) for (const match of node.matchAll(VARIABLE_PATTERN)) visit(match as RegExpExecArray, pointer);
    } else if (Array.isArray(node)) node.forEach((item, index) => walk(item, childPointer(pointer, index)));
    else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) walk(item, childPointer(pointer, key));
    }
  };
  const start = valueAt(value, root);
  walk(start.value, start.pointer);
}

function valueAt(value: unknown, pointer: string): { value: unknown; pointer: string } {
  let current = value;
  for (const segment of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return { value: undefined, pointer };
    current = (current as Record<string, unknown>)[segment];
  }
  return { value: current, pointer };
}
