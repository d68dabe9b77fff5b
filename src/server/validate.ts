import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { childPointer, pointerSegments } from '../json/pointer.js';
import type { ContractError } from './errors.js';
import { COMPONENT_SCHEMAS } from './schemas.js';

// ajv-formats is a CommonJS module whose function is its default export.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/** A mistake of a value against a component schema: where (a JSON Pointer, the missing or extra member included) and what. */
export interface SchemaProblem {
  path: string;
  message: string;
}

type Check = (value: unknown) => ErrorObject[];

let ajv: Ajv2020 | undefined;
const checks = new Map<string, Check>();

/**
 * A validator of the named component schema, compiled on first use (a local core must start fast). It fills
 * in the defaults the schema gives, as the core's request models do, so handlers and fingerprints see them.
 */
function compiled(name: string): Check {
  let check = checks.get(name);
  if (check) return check;
  if (!ajv) {
    // strict off: the OpenAPI document is not a JSON Schema at its root (`components` is no keyword).
    ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, useDefaults: true });
    addFormats(ajv);
    ajv.addSchema({ components: { schemas: COMPONENT_SCHEMAS } }, 'core.json');
  }
  const validate = ajv.compile({ $ref: `core.json#/components/schemas/${name}` });
  check = (value) => (validate(value) ? [] : [...(validate.errors ?? [])]);
  checks.set(name, check);
  return check;
}

/** The mistakes of `value` against the component schema `name`, as JSON Pointers with ajv's words. */
export function schemaCheck(name: string): (value: unknown) => SchemaProblem[] {
  return (value) => compiled(name)(value).map((e) => ({ path: pointerOf(e), message: `${e.instancePath || 'body'} ${e.message ?? 'is invalid'}` }));
}

/** The mistakes of `value` against the component schema `name`, in the core's words, located under `root` (`body`). */
export function contractCheck(name: string, value: unknown, root: string): ContractError[] {
  const errors = compiled(name)(value).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'if');
  return errors.map((e) => ({ loc: [root, ...pointerSegments(pointerOf(e))].join('.'), message: wording(e) }));
}

/** A missing or an extra member is located at the member itself, as the core's request models locate it. */
function pointerOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const member = params.missingProperty ?? params.additionalProperty;
  return member === undefined ? error.instancePath : childPointer(error.instancePath, member);
}

/** The core's wording of a contract error (its request models are pydantic's). */
function wording(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'Field required';
    case 'additionalProperties':
      return 'Extra inputs are not permitted';
    case 'type':
      return `Input should be a valid ${String(params.type).replace(',', ' or ')}`;
    case 'minLength':
      return `String should have at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`;
    case 'maxLength':
      return `String should have at most ${String(params.limit)} characters`;
    case 'minItems':
      return `List should have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'} after validation`;
    case 'maxItems':
      return `List should have at most ${String(params.limit)} items after validation`;
    case 'minimum':
      return `Input should be greater than or equal to ${String(params.limit)}`;
    case 'maximum':
      return `Input should be less than or equal to ${String(params.limit)}`;
    case 'pattern':
      return `String should match pattern '${String(params.pattern)}'`;
    case 'enum':
      return `Input should be ${(params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(', ')}`;
    case 'const':
      return `Input should be '${String(params.allowedValue)}'`;
    case 'format':
      return params.format === 'uuid' ? 'Input should be a valid UUID' : `Input should be a valid ${String(params.format)}`;
    default:
      return error.message ?? 'Input is invalid';
  }
}
