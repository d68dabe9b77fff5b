import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { COMPONENT_SCHEMAS } from './schemas.js';

// ajv-formats is a CommonJS module whose function is its default export.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

export interface SchemaProblem {
  path: string;
  message: string;
}

type Check = (value: unknown) => SchemaProblem[];

let ajv: Ajv2020 | undefined;
const checks = new Map<string, Check>();

/** A validator of the named component schema, compiled on first use (a local core must start fast). */
export function schemaCheck(name: string): Check {
  let check = checks.get(name);
  if (check) return check;
  if (!ajv) {
    // strict off: the OpenAPI document is not a JSON Schema at its root (`components` is no keyword).
    ajv = new Ajv2020({ allErrors: false, strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ components: { schemas: COMPONENT_SCHEMAS } }, 'core.json');
  }
  const validate = ajv.compile({ $ref: `core.json#/components/schemas/${name}` });
  check = (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: `${e.instancePath || 'body'} ${e.message ?? 'is invalid'}` })));
  checks.set(name, check);
  return check;
}
