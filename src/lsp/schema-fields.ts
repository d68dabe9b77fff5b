/**
 * The public JSON Schemas read for an editor: the fields a mapping may hold at a path, and the reference's
 * description and allowed values of a field. Choices (`oneOf`, `if/then/else`) are followed into every branch
 * a document's own `kind` does not rule out.
 */
import { readFileSync } from 'node:fs';
import { isRecord } from '../json/guards.js';
import { SCHEMA_DIR } from '../schema/ajv.js';
import type { YamlPath } from './yaml-place.js';

type Schema = Record<string, unknown>;

/** What kind of file a buffer is: the schema of schema/v1 that describes it, and its `kind` when it is an object. */
export interface DocumentType {
  schema: 'object.schema.json' | 'test.schema.json';
  kind?: string;
}

/** A test scenario (`process:` at the top, no `kind`), else an object file of its `kind`. */
export function documentTypeOf(text: string): DocumentType {
  const kind = /^kind:\s*["']?(\w+)/m.exec(text)?.[1];
  if (kind === undefined && /^process:/m.test(text)) return { schema: 'test.schema.json' };
  return { schema: 'object.schema.json', ...(kind !== undefined ? { kind } : {}) };
}

export interface FieldInfo {
  name: string;
  description?: string;
  values: unknown[];
}

const files = new Map<string, Schema>();

function schemaFile(name: string): Schema {
  let schema = files.get(name);
  if (!schema) {
    schema = JSON.parse(readFileSync(`${SCHEMA_DIR}${name}`, 'utf8')) as Schema;
    files.set(name, schema);
  }
  return schema;
}

interface Located {
  schema: Schema;
  file: string;
}

/** `$ref` followed, within its file or into another file of schema/v1. */
function resolved(at: Located, seen = new Set<string>()): Located {
  const ref = at.schema.$ref;
  if (typeof ref !== 'string') return at;
  const [target, fragment = ''] = ref.split('#');
  const file = target ? target.replace(/^.*\//, '') : at.file;
  if (seen.has(`${file}#${fragment}`)) return at;
  seen.add(`${file}#${fragment}`);
  let node: unknown = schemaFile(file);
  for (const segment of fragment.split('/').filter(Boolean)) node = isRecord(node) ? node[segment] : undefined;
  return isRecord(node) ? resolved({ schema: { ...node, ...withoutRef(at.schema) }, file }, seen) : at;
}

function withoutRef(schema: Schema): Schema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

/** The schema itself and every branch of its choices the document's `kind` allows. */
function branches(at: Located, kind: unknown, depth = 0): Located[] {
  const here = resolved(at);
  if (depth > 12) return [here];
  const out: Located[] = [here];
  for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
    const list = here.schema[keyword];
    if (Array.isArray(list)) for (const part of list.filter(isRecord)) out.push(...branches({ schema: part, file: here.file }, kind, depth + 1));
  }
  const test = here.schema.if;
  const verdict = isRecord(test) ? kindTest(test, kind) : undefined;
  if (isRecord(here.schema.then) && verdict !== false) out.push(...branches({ schema: here.schema.then, file: here.file }, kind, depth + 1));
  if (isRecord(here.schema.else) && verdict !== true) out.push(...branches({ schema: here.schema.else, file: here.file }, kind, depth + 1));
  return out;
}

/** Whether an `if` that tests the document's `kind` holds; undefined when it tests something else. */
function kindTest(test: Schema, kind: unknown): boolean | undefined {
  const properties = isRecord(test.properties) ? test.properties : undefined;
  const condition = properties && isRecord(properties.kind) ? properties.kind : undefined;
  if (!condition || kind === undefined) return undefined;
  if ('const' in condition) return condition.const === kind;
  if (Array.isArray(condition.enum)) return condition.enum.includes(kind);
  return undefined;
}

/** The schemas that may describe the node at `path` of an object file of kind `kind`. */
function schemasAt(path: YamlPath, type: DocumentType): Located[] {
  const kind = type.kind;
  let current = branches({ schema: schemaFile(type.schema), file: type.schema }, kind);
  for (const segment of path) {
    const next: Located[] = [];
    for (const at of current) {
      const { schema, file } = at;
      const child = typeof segment === 'number'
        ? schema.items
        : (isRecord(schema.properties) ? schema.properties[segment] : undefined) ?? schema.additionalProperties;
      if (isRecord(child)) next.push(...branches({ schema: child, file }, kind));
    }
    current = next;
  }
  return current;
}

/** The fields a mapping at `path` may hold, in the order of the schema. */
export function fieldsAt(path: YamlPath, type: DocumentType): FieldInfo[] {
  const fields = new Map<string, FieldInfo>();
  const kind = type.kind;
  for (const { schema, file } of schemasAt(path, type)) {
    if (!isRecord(schema.properties)) continue;
    for (const [name, field] of Object.entries(schema.properties)) {
      if (fields.has(name) || !isRecord(field)) continue;
      fields.set(name, describe(name, branches({ schema: field, file }, kind)));
    }
  }
  return [...fields.values()];
}

/** The description and allowed values of the field at `path`. */
export function fieldAt(path: YamlPath, type: DocumentType): FieldInfo | undefined {
  const name = path[path.length - 1];
  if (typeof name !== 'string') return undefined;
  const found = schemasAt(path, type);
  return found.length === 0 ? undefined : describe(name, found);
}

function describe(name: string, found: readonly Located[]): FieldInfo {
  const description = found.map(({ schema }) => schema.description).find((text): text is string => typeof text === 'string');
  const values = [...new Set(found.flatMap(({ schema }) => (Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [])))];
  return { name, ...(description !== undefined ? { description } : {}), values };
}
