/**
 * Reading the optional parts of a spec defensively: a rule runs on what passed the schema, but never throws
 * on a shape it did not expect — it just finds nothing there.
 */
import { childPointer } from '../json/pointer.js';
import { isRecord } from '../json/guards.js';

/** Each string item of an array, with its pointer. */
export function eachString(value: unknown, pointer: string, visit: (item: string, pointer: string) => void): void {
  if (!Array.isArray(value)) return;
  value.forEach((item, index) => {
    if (typeof item === 'string') visit(item, childPointer(pointer, index));
  });
}

/** Each mapping item of an array, with its pointer. */
export function eachMapping(value: unknown, pointer: string, visit: (item: Record<string, unknown>, pointer: string) => void): void {
  if (!Array.isArray(value)) return;
  value.forEach((item, index) => {
    if (isRecord(item)) visit(item, childPointer(pointer, index));
  });
}

/** The strings of an array, or undefined when it is not one. */
export function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** The spec of the installation, when there is one and it is a mapping. */
export function installationSpec(value: unknown): Record<string, unknown> | undefined {
  const spec = isRecord(value) ? value.spec : undefined;
  return isRecord(spec) ? spec : undefined;
}
