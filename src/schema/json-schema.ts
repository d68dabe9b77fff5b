/**
 * Whether a schema an author embeds (a process's `spec.data`, a human step's form) is a JSON Schema at all: the
 * core checks such schemas against the Draft 2020-12 metaschema before it uses them. Formats of the metaschema
 * (`uri-reference` of `$id`, …) are not judged, so a schema is never refused for what the core might take.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

/** The first way a schema is not a JSON Schema: where in the schema (a JSON Pointer), and what is wrong there. */
export interface JsonSchemaProblem {
  pointer: string;
  message: string;
  /** The values the metaschema allows there, when it names them. */
  allowed?: readonly string[];
}

let metaschema: Ajv2020 | undefined;

/** Undefined when `schema` is a Draft 2020-12 JSON Schema; else the deepest place the metaschema refuses. */
export function jsonSchemaProblem(schema: unknown): JsonSchemaProblem | undefined {
  metaschema ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });
  if (metaschema.validateSchema(schema as object) === true) return undefined;
  const errors = metaschema.errors ?? [];
  const deepest = errors.reduce<ErrorObject | undefined>((best, error) => (best === undefined || depth(error) > depth(best) ? error : best), undefined);
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
