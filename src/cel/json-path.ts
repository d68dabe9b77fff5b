/**
 * Reading plain JSON values by path, for the tables of expression fields: `a/b` names, `*` every array item or
 * mapping value. Pointers follow RFC 6901, as findings do.
 */
import { childPointer } from '../load/pointer.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The values at `path` under `value`, each with its JSON Pointer (`pointer` is that of `value`). */
export function selectPath(value: unknown, path: readonly string[], pointer: string): [unknown, string][] {
  if (path.length === 0) return [[value, pointer]];
  const [head, ...rest] = path;
  if (head === '*') {
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [i, item])
      : isRecord(value) ? Object.entries(value) : [];
    return entries.flatMap(([key, item]) => selectPath(item, rest, childPointer(pointer, key)));
  }
  if (!isRecord(value) || !Object.hasOwn(value, head)) return [];
  return selectPath(value[head], rest, childPointer(pointer, head));
}

/** Each entry of a mapping with its pointer; nothing for anything else. */
export function entriesOf(value: unknown, pointer: string): [unknown, string][] {
  return isRecord(value) ? Object.entries(value).map(([key, item]) => [item, childPointer(pointer, key)]) : [];
}
