/**
 * JSON Schema checks of the values a scenario moves around: instance data against `spec.data`, form output
 * against the step's form, mock answers against the skill's contract, settings against the package settings
 * schema. Authors' schemas are checked as JSON Schema 2020-12 without ajv's strict mode: titles, `x-ref` and
 * other annotations are theirs to use.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is a CommonJS module whose function is its default export.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

export class SchemaChecker {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateSchema: false }));
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  /** The first problem of `value` against `schema` as `<path> <message>`, or undefined when it is valid. */
  problem(schema: unknown, value: unknown): string | undefined {
    if (typeof schema !== 'object' || schema === null) return undefined;
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      try {
        validate = this.ajv.compile(withoutDialect(schema as Record<string, unknown>));
      } catch (error) {
        return `the schema cannot be used: ${(error as Error).message}`;
      }
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return undefined;
    const first = validate.errors?.[0];
    if (first === undefined) return 'does not match the schema';
    const where = first.instancePath === '' ? '' : `${first.instancePath.slice(1).replaceAll('/', '.')} `;
    const allowed = first.keyword === 'enum' ? ` (${(first.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})` : '';
    const extra = first.keyword === 'additionalProperties' ? ` '${(first.params as { additionalProperty: string }).additionalProperty}'` : '';
    return `${where}${first.message ?? 'is invalid'}${allowed}${extra}`;
  }
}

/** Skill contracts name the draft in `$schema`; the checker is 2020-12 whatever they say. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema) && !('$id' in schema)) return schema;
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}
