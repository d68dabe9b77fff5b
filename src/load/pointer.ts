/**
 * JSON Pointers (RFC 6901): how findings, `floats` and `locate` name a place in a document.
 */

/** The pointer of `segment` under `base`. */
export function childPointer(base: string, segment: string | number): string {
  const text = String(segment);
  return `${base}/${text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text}`;
}

/** The unescaped reference tokens of `pointer` ('' has none). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(pointer.startsWith('/') ? 1 : 0)
    .split('/')
    .map((token) => (token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token));
}
