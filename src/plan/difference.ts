/**
 * Field-by-field differences of two JSON values: apply names the first field where a plan file and the
 * plan rebuilt from the core part ways, and a reviewer sees which fields of an object an update changes,
 * with the value before and after.
 */
import { canonicalJson } from '../json/canonical.js';

export interface Difference {
  /** JSON Pointer of the field ('' for the whole value). */
  path: string;
  /** Absent when the field is new. */
  before?: unknown;
  /** Absent when the field is gone. */
  after?: unknown;
}

/** Every leaf where `before` and `after` differ; objects are compared member by member, arrays item by item. */
export function differences(before: unknown, after: unknown, path = ''): Difference[] {
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null) && (before === undefined) === (after === undefined)) return [];
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => differences(before[key], after[key], `${path}/${escape(key)}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, index) => differences(item, after[index], `${path}/${index}`));
  }
  return [{ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

/** A value as a message shows it: compact JSON, cut in the middle when longer than `width`. */
export function shortValue(value: unknown, width = 60): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  if (text.length <= width) return text;
  const half = Math.floor((width - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
