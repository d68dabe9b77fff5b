import { isRecord } from '../json/guards.js';
/**
 * Comparing and addressing plain JSON values the way scenarios do: `expect` gives a subset of what is there
 * (fields not given are not checked), numbers compare by value (`120` is `120.0`), instants by the moment they
 * name, and data is addressed by dotted paths (`purchase.customer.inn`).
 */


/** Whether `actual` holds everything `expected` gives: objects by their given fields, arrays item by item. */
export function containsValue(expected: unknown, actual: unknown): boolean {
  if (isRecord(expected)) {
    return isRecord(actual) && Object.entries(expected).every(([key, value]) => containsValue(value, actual[key]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((item, i) => containsValue(item, actual[i]));
  }
  if (typeof expected === 'string' && typeof actual === 'string' && expected !== actual) return sameInstant(expected, actual);
  return expected === actual;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Two RFC 3339 texts of the same moment (`2026-10-05T18:00:00+03:00` and `2026-10-05T15:00:00.000Z`). */
export function sameInstant(a: string, b: string): boolean {
  return INSTANT.test(a) && INSTANT.test(b) && Date.parse(a) === Date.parse(b);
}

/** The value at a dotted path (`purchase.customer.inn`) or a JSON Pointer (`/purchase/lines/0`), or undefined. */
export function valueAt(root: unknown, path: string): unknown {
  const parts = path.startsWith('/') ? path.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~')) : path.split('.');
  let current = root;
  for (const part of parts) {
    if (Array.isArray(current) && /^\d+$/.test(part)) {
      current = current[Number(part)];
      continue;
    }
    if (!isRecord(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/** Sets the value at a dotted path, making the objects on the way. */
export function setValueAt(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = root;
  for (const part of parts.slice(0, -1)) {
    if (!isRecord(current[part])) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts[parts.length - 1]!] = value;
}

/** A value as short JSON for a failure message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** The mappings of a list (nothing when it is not one). */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** A deep copy of a JSON value. */
export function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The leaf paths (dotted) where two JSON values differ; a value that is not an object on either side is a leaf. */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((key) => changedPaths(before[key], after[key], prefix === '' ? key : `${prefix}.${key}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}
