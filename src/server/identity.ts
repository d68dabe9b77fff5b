import { createHash, randomUUID } from 'node:crypto';

/** The one tenant of a local core, and the principal that every write is made by (there is one token). */
export const TENANT_ID = '00000000-0000-4000-8000-000000000001';
export const ADMIN_PRINCIPAL_ID = '00000000-0000-4000-8000-000000000002';

export function newId(): string {
  return randomUUID();
}

export function now(): string {
  return new Date().toISOString();
}

/**
 * JSON with object keys sorted, so equal values hash equally. The core's hashes (`specHash`,
 * `definitionHash`, `planHash`) are its own: clients compare them, never recompute them.
 */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => byText(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

/** Plain string order (UTF-16 code units), as the core sorts paths and keys. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function digest(value: unknown): string {
  return digestOfText(stableJson(value));
}

/** `digest` of a value whose `stableJson` is at hand. */
export function digestOfText(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
