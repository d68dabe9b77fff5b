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
 * looks), in document order. Mapping keys are not searched.
 */
export function findVariables(document: SourceDocument, root = '/spec'): VariableUse[] {
  const uses: VariableUse[] = [];
  const start = valueAt(document.value, root);
  const visit = (value: unknown, pointer: string): void => {
    if (typeof value === 'string') {
      if (!value.includes('${')) return;
      for (const match of value.matchAll(VARIABLE_PATTERN)) {
        const first = document.locateInScalar(pointer, match.index);
        const last = document.locateInScalar(pointer, match.index + match[0].length - 1);
        uses.push({
          name: match[1]!,
          pointer,
          offset: match.index,
          span: { line: first.line, column: first.column, endLine: last.endLine ?? last.line, endColumn: last.endColumn ?? last.column + 1 },
        });
      }
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, childPointer(pointer, index)));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, childPointer(pointer, key));
    }
  };
  visit(start.value, start.pointer);
  return uses;
}

function valueAt(value: unknown, pointer: string): { value: unknown; pointer: string } {
  let current = value;
  for (const segment of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return { value: undefined, pointer };
    current = (current as Record<string, unknown>)[segment];
  }
  return { value: current, pointer };
}
