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

/** The value at `pointer` in a JSON value, or undefined when nothing is there. */
export function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(current)) current = /^(0|[1-9][0-9]*)$/.test(segment) ? current[Number(segment)] : undefined;
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) current = (current as Record<string, unknown>)[segment];
    else return undefined;
  }
  return current;
}
