/**
 * Shared by the schema suites: one ajv with the project's configuration, and the choice of the public
 * schema that a document is checked against.
 */
import type { ErrorObject } from 'ajv';
import { createAjv, schemaFile, type SchemaName } from '../../src/check/ajv.js';

const ajv = createAjv();

export interface Validation {
  valid: boolean;
  errors: ErrorObject[];
}

export function validate(schema: SchemaName, document: unknown): Validation {
  const check = ajv.getSchema(schemaFile(schema));
  if (!check) throw new Error(`schema/v1/${schemaFile(schema)} is missing`);
  const valid = check(document) as boolean;
  return { valid, errors: valid ? [] : [...(check.errors ?? [])] };
}

/** Object files carry the wrapper; every other document is named by what it is. */
export function schemaOf(document: unknown, otherwise: SchemaName): SchemaName {
  const isObject = typeof document === 'object' && document !== null && 'apiVersion' in document;
  return isObject ? 'object' : otherwise;
}

/** One line per error, for a readable failure message. */
export function describeErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '/'} ${e.keyword}: ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

/** ajv reports a failed if/then once more at the branching object: that is the trace, not the mistake. */
export function causes(errors: ErrorObject[]): ErrorObject[] {
  return errors.filter((e) => e.keyword !== 'if');
}
