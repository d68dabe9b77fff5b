/** What a JSON value is, as the type system needs to know it. */

/** A JSON object: a mapping of names to values (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
