/**
 * The JSON Schema subset that bundles use for `input_schema` and `output_schema` (bundle format
 * reference: type, required, properties, items, enum, minimum, maximum, minLength, maxLength,
 * pattern, additionalProperties). Small and exact on purpose: the same checks serve `bundle validate`
 * (mock outputs, schema shape) and `bundle run` (inputs and step outputs), with kernos-style dotted paths.
 */
import { isJsonNumber, isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../json/parse.js';
import { kernosCanonicalJson } from '../json/canonical.js';

export const SCHEMA_KEYWORDS = new Set([
  'type', 'required', 'properties', 'items', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'additionalProperties',
  // annotations: no effect on validity
  'description', 'title', '$schema', 'default', 'examples',
]);
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

export interface SchemaViolation {
  /** Dotted path inside the validated value (`''` for the value itself). */
  path: string;
  message: string;
}

/** A structural problem of a schema itself, by dotted path inside the schema. */
export function schemaShapeProblems(schema: JsonValue, at = ''): SchemaViolation[] {
  const problems: SchemaViolation[] = [];
  const join = (key: string) => (at === '' ? key : `${at}.${key}`);
  if (!isJsonObject(schema)) return [{ path: at, message: 'a schema must be an object' }];
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYWORDS.has(key)) problems.push({ path: join(key), message: `keyword ${key} is outside the bundle schema subset and is ignored` });
  }
  const { type, properties, required, items, additionalProperties, pattern } = schema;
  const typeList = Array.isArray(type) ? type : type === undefined ? [] : [type];
  if (type !== undefined && !typeList.every((t) => typeof t === 'string' && TYPES.has(t))) {
    problems.push({ path: join('type'), message: `type must be one of ${[...TYPES].join(', ')}, or a list of them` });
  }
  if (properties !== undefined) {
    if (!isJsonObject(properties)) problems.push({ path: join('properties'), message: 'properties must be an object' });
    else for (const [name, sub] of Object.entries(properties)) problems.push(...schemaShapeProblems(sub, join(`properties.${name}`)));
  }
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      problems.push({ path: join('required'), message: 'required must be a list of strings' });
    } else {
      for (const name of required) {
        if (!isJsonObject(properties) || !(name in properties)) problems.push({ path: join('required'), message: `required field ${name} is not in properties` });
      }
    }
  }
  if (items !== undefined) problems.push(...schemaShapeProblems(items, join('items')));
  if (additionalProperties !== undefined && typeof additionalProperties !== 'boolean') problems.push(...schemaShapeProblems(additionalProperties, join('additionalProperties')));
  if (pattern !== undefined && !compiles(pattern)) problems.push({ path: join('pattern'), message: 'pattern must be a valid regular expression' });
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) {
    if (schema[k] !== undefined && !isJsonNumber(schema[k])) problems.push({ path: join(k), message: `${k} must be a number` });
  }
  return problems;
}

function compiles(pattern: JsonValue): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function typeOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isJsonNumber(value)) return 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

function hasType(value: JsonValue, type: string): boolean {
  if (type === 'integer') return isJsonNumber(value) && Number.isInteger(Number(value));
  return typeOf(value) === type;
}

export interface ValidateOptions {
  /** Values that are not known yet (templates in a mock): accepted as they are. */
  opaque?: (value: JsonValue) => boolean;
}

/** Every violation of `schema` by `value`. Unknown keywords are ignored. */
export function schemaViolations(value: JsonValue, schema: JsonValue, options: ValidateOptions = {}, at = ''): SchemaViolation[] {
  if (!isJsonObject(schema) || options.opaque?.(value)) return [];
  const out: SchemaViolation[] = [];
  const fail = (message: string) => out.push({ path: at, message });
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length > 0 && !types.some((t) => typeof t === 'string' && hasType(value, t))) {
    fail(`expected ${types.join(' or ')}, got ${typeOf(value)}`);
    return out;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => kernosCanonicalJson(e) === kernosCanonicalJson(value))) {
    fail(`must be one of ${schema.enum.map((e) => kernosCanonicalJson(e)).join(', ')}`);
  }
  if (isJsonNumber(value)) numberViolations(Number(value), schema, fail);
  if (typeof value === 'string') stringViolations(value, schema, fail);
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => out.push(...schemaViolations(item, schema.items!, options, child(at, String(i)))));
  }
  if (isJsonObject(value)) out.push(...objectViolations(value, schema, options, at));
  return out;
}

function child(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`;
}

function numberViolations(n: number, schema: JsonObject, fail: (m: string) => void): void {
  if (isJsonNumber(schema.minimum) && n < Number(schema.minimum)) fail(`must be at least ${num(schema.minimum)}`);
  if (isJsonNumber(schema.maximum) && n > Number(schema.maximum)) fail(`must be at most ${num(schema.maximum)}`);
}

function stringViolations(s: string, schema: JsonObject, fail: (m: string) => void): void {
  const length = [...s].length;
  if (isJsonNumber(schema.minLength) && length < Number(schema.minLength)) fail(`must be at least ${num(schema.minLength)} characters long`);
  if (isJsonNumber(schema.maxLength) && length > Number(schema.maxLength)) fail(`must be at most ${num(schema.maxLength)} characters long`);
  if (typeof schema.pattern === 'string' && compiles(schema.pattern) && !new RegExp(schema.pattern, 'u').test(s)) {
    fail(`must match the pattern ${schema.pattern}`);
  }
}

function objectViolations(value: JsonObject, schema: JsonObject, options: ValidateOptions, at: string): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const properties = isJsonObject(schema.properties) ? schema.properties : undefined;
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      if (typeof name === 'string' && !(name in value)) out.push({ path: child(at, name), message: 'is required' });
    }
  }
  for (const [key, sub] of Object.entries(value)) {
    const declared = properties?.[key];
    if (declared !== undefined) out.push(...schemaViolations(sub, declared, options, child(at, key)));
    else if (schema.additionalProperties === false) out.push({ path: child(at, key), message: 'is not an allowed property' });
    else if (isJsonObject(schema.additionalProperties)) out.push(...schemaViolations(sub, schema.additionalProperties, options, child(at, key)));
  }
  return out;
}

function num(value: number | JsonNumber): string {
  return value instanceof JsonNumber ? value.lexeme : String(value);
}

/**
 * Whether a path (segments) inside a value of `schema` is declared by its `properties` / `items`:
 * `undeclared` only when an object schema lists its properties and allows no others there.
 */
export function declaresPath(schema: JsonValue, segments: readonly string[]): 'declared' | 'undeclared' | 'unknown' {
  let current = schema;
  for (const segment of segments) {
    if (!isJsonObject(current)) return 'unknown';
    if (isJsonObject(current.properties) && segment in current.properties) {
      current = current.properties[segment]!;
    } else if (current.items !== undefined && /^[0-9]+$/.test(segment)) {
      current = current.items;
    } else if (isJsonObject(current.properties) && current.additionalProperties !== true && !isJsonObject(current.additionalProperties)) {
      return 'undeclared';
    } else {
      return 'unknown';
    }
  }
  return 'declared';
}
