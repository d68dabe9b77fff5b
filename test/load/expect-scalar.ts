import { expect } from 'vitest';
import type { SourceDocument } from '../../src/json/document.js';
import { lineStartsOf } from '../../src/load/load-finding.js';

/**
 * Checks `locateInScalar` character by character: each character of the string at `pointer` must map,
 * in increasing order, to that character in the file, to an escape for it, or to the line break or
 * blank that folding turned into it.
 */
export function expectExactScalarMap(document: SourceDocument, pointer: string, value: string): void {
  const starts = lineStartsOf(document.text);
  let previous = -1;
  for (let i = 0; i < value.length; i++) {
    const span = document.locateInScalar(pointer, i);
    const offset = starts[span.line - 1]! + span.column - 1;
    const where = `${document.file} ${pointer} character ${i} of ${JSON.stringify(value)}`;
    expect(offset, where).toBeGreaterThan(previous);
    previous = offset;
    const written = document.text[offset]!;
    const char = value[i]!;
    if (char === ' ' || char === '\n') expect([' ', '\n', '\r', '\\'], where).toContain(written);
    else if (written !== char) expect(written, where).toBe('\\');
  }
}

/** Every string value of `value` with its pointer. */
export function stringsOf(value: unknown, pointer = ''): [string, string][] {
  if (typeof value === 'string') return [[pointer, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsOf(item, `${pointer}/${i}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => stringsOf(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return [];
}
