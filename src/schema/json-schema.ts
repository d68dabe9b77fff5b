/**
 * Whether a schema an author embeds (a process's `spec.data`, a human step's form) is a JSON Schema at all: the
 * core checks such schemas against the Draft 2020-12 metaschema before it uses them. Formats of the metaschema
 * (`uri-reference` of `$id`, `regex` of `pattern`, …) are not judged: JavaScript's regular expressions are not
 * Python's, and a schema is never refused for what the core might take.
 *
 * The build precompiles the metaschema (scripts/build-validators.mjs), as it does the public schemas: compiling
 * it costs more than checking a package. The bundled `check` has it with the validators, from their code cache.
 * From sources ajv compiles it on first use.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020, Options } from 'ajv/dist/2020.js';
import { bundledValidator } from './validators.js';

/** The first way a schema is not a JSON Schema: where in the schema (a JSON Pointer), and what is wrong there. */
export interface JsonSchemaProblem {
  pointer: string;
  message: string;
  /** The values the metaschema allows there, when it names them. */
  allowed?: readonly string[];
}

/** The id of the Draft 2020-12 metaschema, which ajv knows. */
export const METASCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/** How the metaschema is compiled, at build time and from sources alike. */
export const METASCHEMA_OPTIONS: Options = { allErrors: true, strict: false, validateFormats: false, logger: false };

/** The precompiled metaschema, beside the modules in dist/schema/ (also from the check bundle in dist/cli/). */
const PRECOMPILED = '../schema/metaschema.generated.cjs';

let validate: ValidateFunction | undefined;

function metaschema(): ValidateFunction {
  if (validate !== undefined) return validate;
  validate = bundledValidator('jsonSchema');
  if (validate !== undefined) return validate;
  const require = createRequire(import.meta.url);
  try {
    validate = (require(PRECOMPILED) as { jsonSchema: ValidateFunction }).jsonSchema;
  } catch {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as { Ajv2020: new (options: Options) => Ajv2020 };
    validate = new Ajv(METASCHEMA_OPTIONS).getSchema(METASCHEMA_ID)!;
  }
  return validate;
}

/** Undefined when `schema` is a Draft 2020-12 JSON Schema; else the deepest place the metaschema refuses. */
export function jsonSchemaProblem(schema: unknown): JsonSchemaProblem | undefined {
  const check = metaschema();
  if (check(schema) === true) return undefined;
  const deepest = (check.errors ?? []).reduce<ErrorObject | undefined>((best, error) => (best === undefined || depth(error) > depth(best) ? error : best), undefined);
  if (deepest === undefined) return { pointer: '', message: 'it is not a JSON Schema' };
  const allowed = (deepest.params as { allowedValues?: unknown }).allowedValues;
  return {
    pointer: deepest.instancePath,
    message: deepest.message ?? 'it is not a JSON Schema',
    ...(Array.isArray(allowed) ? { allowed: allowed.map(String) } : {}),
  };
}

function depth(error: ErrorObject): number {
  return error.instancePath === '' ? 0 : error.instancePath.split('/').length;
}
