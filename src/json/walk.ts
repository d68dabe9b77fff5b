/**
 * Reading plain JSON values by path, for the tables of expression fields: `a/b` names, `*` every array item or
 * mapping value. Pointers follow RFC 6901, as findings do.
 */
import { childPointer } from './pointer.js';
import { isRecord } from './guards.js';


/** Calls `visit` with each value at `path` under `value` and its JSON Pointer (`pointer` is that of `value`). */
export function forEachAt(
  value: unknown,
  path: readonly string[],
  pointer: string,
  visit: (found: unknown, at: string) => void,
  from = 0,
): void {
  if (from === path.length) {
    visit(value, pointer);
    return;
  }
  const head = path[from];
  if (head !== '*') {
    if (isRecord(value) && Object.hasOwn(value, head)) forEachAt(value[head], path, childPointer(pointer, head), visit, from + 1);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) forEachAt(value[i], path, `${pointer}/${i}`, visit, from + 1);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) forEachAt(value[key], path, childPointer(pointer, key), visit, from + 1);
  }
}

const EVERY = ['*'];

/** Calls `visit` with each value of a mapping and its pointer; nothing for anything else. */
export function forEachEntry(value: unknown, pointer: string, visit: (found: unknown, at: string) => void): void {
  if (isRecord(value)) forEachAt(value, EVERY, pointer, visit);
}

/** Calls `visit` with each item of an array, or each value of a mapping, and its pointer. */
export function forEachItem(value: unknown, pointer: string, visit: (found: unknown, at: string) => void): void {
  forEachAt(value, EVERY, pointer, visit);
}
