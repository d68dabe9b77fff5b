/**
 * JSON Schema checks of the values a scenario moves around: instance data against `spec.data`, form output
 * against the step's form, mock answers against the skill's contract, settings against the package settings
 * schema. Authors' schemas are checked as JSON Schema 2020-12 without ajv's strict mode: titles, `x-ref` and
 * other annotations are theirs to use.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is a CommonJS module whose function is its default export.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/** A validator kind: the first error, or all of them; its ajv is made on first use and shared. */
class Validators {
  private ajv?: Ajv2020;
  private readonly compiled = new WeakMap<object, ValidateFunction | string>();

  constructor(private readonly allErrors: boolean) {}

  /** The compiled validator of a schema object (compiled once per object), or why the schema cannot be used. */
  of(schema: object): ValidateFunction | string {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      this.ajv ??= addFormats(new Ajv2020({ strict: false, allErrors: this.allErrors, validateSchema: false }));
      try {
        validate = this.ajv.compile(withoutDialect(schema as Record<string, unknown>));
      } catch (error) {
        validate = `the schema cannot be used: ${(error as Error).message}`;
      }
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

// The schemas of a loaded workspace are the same objects from one scenario to the next: each is compiled once.
const FIRST_ERROR = new Validators(false);
const ALL_ERRORS = new Validators(true);

export class SchemaChecker {
  /** The first problem of `value` against `schema` as `<path> <message>`, or undefined when it is valid. */
  problem(schema: unknown, value: unknown): string | undefined {
    return check(FIRST_ERROR, schema, value, 1)[0];
  }

  /** Up to `limit` problems of `value` against `schema`. */
  problems(schema: unknown, value: unknown, limit: number): string[] {
    return check(ALL_ERRORS, schema, value, limit);
  }
}

function check(validators: Validators, schema: unknown, value: unknown, limit: number): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const validate = validators.of(schema);
  if (typeof validate === 'string') return [validate];
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  return errors.length === 0 ? ['does not match the schema'] : errors.slice(0, limit).map(describe);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : `${error.instancePath.slice(1).replaceAll('/', '.')} `;
  const allowed = error.keyword === 'enum' ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})` : '';
  const extra = error.keyword === 'additionalProperties' ? ` '${(error.params as { additionalProperty: string }).additionalProperty}'` : '';
  return `${where}${error.message ?? 'is invalid'}${allowed}${extra}`;
}

/** Skill contracts name the draft in `$schema`; the checker is 2020-12 whatever they say. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema) && !('$id' in schema)) return schema;
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}
