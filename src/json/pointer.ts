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

/** `/spec/lines/0/discount` → `spec.lines[0].discount`: a place as messages name it. */
export function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

/** `/spec/identity/agent` → `identity.agent`: a field of an object's spec, as the core's messages name it. */
export function fieldOf(pointer: string): string {
  return dottedPath(pointer).replace(/^spec\./, '');
}

/**
 * True when `pointer` is one of the `patterns` or inside one; a pattern is a pointer whose `*` segments match any
 * segment (`/spec/settings/*`).
 */
export function matchesPointerPattern(patterns: readonly string[], pointer: string): boolean {
  const segments = pointer.split('/');
  return patterns.some((pattern) => {
    const parts = pattern.split('/');
    return parts.length <= segments.length && parts.every((part, i) => part === '*' || part === segments[i]);
  });
}
