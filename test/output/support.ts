/**
 * What the output tests share: the JSON Schemas of the `--json` outputs (schema/v1/cli/, compiled with the
 * package schemas they refer to) and the shape of a JSON value — its keys and the types of its values — which
 * the shape snapshots hold, so that no timestamp, hash or temporary path can make them differ between runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../src/schema/ajv.js';
import { ROOT } from '../support/cli.js';

export const CLI_SCHEMA_DIR = join(ROOT, 'schema/v1/cli');
const SCHEMA_BASE = 'https://taimen.ai/schemas/package-sdk/v1/cli/';

/** The schema file of a command's `--json` output: `bundle:validate` → `bundle-validate.json`. */
export function schemaFileOf(commandId: string): string {
  return `${commandId.replaceAll(':', '-')}.json`;
}

const validators = new Map<string, ValidateFunction>();

/** The validator of one schema of schema/v1/cli/ (by file name), the package schemas it refers to loaded. */
export function validatorOf(file: string): ValidateFunction {
  if (validators.size === 0) {
    const ajv = createAjv();
    for (const name of readdirSync(CLI_SCHEMA_DIR).filter((f) => f.endsWith('.json'))) {
      ajv.addSchema(JSON.parse(readFileSync(join(CLI_SCHEMA_DIR, name), 'utf8')) as object);
    }
    for (const name of readdirSync(CLI_SCHEMA_DIR).filter((f) => f.endsWith('.json'))) validators.set(name, ajv.getSchema(`${SCHEMA_BASE}${name}`)!);
  }
  const validate = validators.get(file);
  if (!validate) throw new Error(`no schema/v1/cli/${file}`);
  return validate;
}

/** The schema's complaints about `value`, one per line ('' when it is valid). */
export function schemaErrors(file: string, value: unknown): string {
  const validate = validatorOf(file);
  if (validate(value)) return '';
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`).join('\n');
}

export type Shape = string | Shape[] | { [key: string]: Shape };

/**
 * Keys and types of a JSON value: a string becomes "string", an object keeps its keys in order, an array
 * lists the distinct shapes of its items, sorted, so that the order of the items does not count (an empty
 * array stays empty).
 */
export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return distinct(value.map(shapeOf));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  return typeof value;
}

function distinct(shapes: Shape[]): Shape[] {
  const byText = new Map(shapes.map((shape) => [JSON.stringify(shape), shape]));
  return [...byText.keys()].sort().map((text) => byText.get(text)!);
}

/** A shape as its snapshot file holds it. */
export function shapeText(value: unknown): string {
  return `${JSON.stringify(shapeOf(value), null, 2)}\n`;
}

/** A step several tests need, made once by whichever test asks first. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
