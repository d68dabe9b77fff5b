import { isRecord } from '../json/guards.js';

/** The name our object types carry inside the library; messages strip it. */
export const OBJECT_TYPE_PREFIX = 'taimen.';
/**
 * CEL types of the `taimen/1` profile, derived from JSON Schema.
 *
 * A schema becomes a small tree of `CelShape`s first; the same tree then
 *  - registers the object types of an environment (so the type checker knows `data.amount` is a double),
 *  - tells the checker which names a path may use (`unknown_data_field`, `settings_ref_unknown`, did-you-mean),
 *  - converts JSON values into CEL values for evaluation (integers to BigInt, date-times to Date).
 *
 * Mapping: integer → int, number → double, boolean → bool, string → string, string with `format: date-time` →
 * timestamp, array → list of its items, object with properties → an object type whose fields are exactly the
 * declared properties, object with only `additionalProperties: <schema>` → map, anything else → dyn. A nullable
 * type (`type: [string, "null"]`) is dyn: CEL has no nullable scalars and the value may be null at run time.
 */

export type JsonSchema = Record<string, unknown> | boolean;

export type CelShape =
  | { kind: 'dyn' | 'int' | 'double' | 'bool' | 'string' | 'timestamp' | 'duration' }
  | { kind: 'list'; items: CelShape }
  | { kind: 'map'; values: CelShape }
  /**
   * `open`: the object also allows undeclared names (JSON Schema `additionalProperties: true` or a schema) — those
   * read as `extra`. The type checker sees such an object as a map, since CEL object types are closed.
   */
  | { kind: 'object'; fields: ReadonlyMap<string, CelShape>; open: boolean; extra: CelShape };

/**
 * JSON Schemas of the simple type names other formats use: a view param's `type`, a decision table output's
 * `type`. Dates stay strings; date-times and timestamps are instants.
 */
export const SIMPLE_TYPE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string' },
  datetime: { type: 'string', format: 'date-time' },
  timestamp: { type: 'string', format: 'date-time' },
  uuid: { type: 'string' },
  duration: { type: 'string' },
  object: { type: 'object' },
  array: { type: 'array' },
};

export const DYN: CelShape = { kind: 'dyn' };
export const STRING: CelShape = { kind: 'string' };
export const INT: CelShape = { kind: 'int' };
export const BOOL: CelShape = { kind: 'bool' };
export const TIMESTAMP: CelShape = { kind: 'timestamp' };
export const DYN_MAP: CelShape = { kind: 'map', values: DYN };

export function objectShape(fields: Record<string, CelShape>, open = false): CelShape {
  return { kind: 'object', fields: new Map(Object.entries(fields)), open, extra: DYN };
}

const SCALARS: Record<string, CelShape> = {
  integer: INT,
  number: { kind: 'double' },
  boolean: BOOL,
  string: STRING,
};

/** Schemas nest; a `$ref` cycle (a tree of comments) would otherwise recurse forever. */
const MAX_DEPTH = 32;

/** The CEL shape of a JSON Schema. Local `$ref`s (`#/…`) resolve against `root`; any other `$ref` is dyn. */
export function shapeOf(schema: JsonSchema | undefined, root: JsonSchema | undefined = schema): CelShape {
  return shapeAt(schema, root, 0);
}

function shapeAt(schema: JsonSchema | undefined, root: JsonSchema | undefined, depth: number): CelShape {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_DEPTH) return DYN;
  if (typeof schema.$ref === 'string') return shapeAt(resolveLocalRef(schema.$ref, root), root, depth + 1);
  const type = declaredType(schema);
  if (type === 'string') return schema.format === 'date-time' ? TIMESTAMP : STRING;
  if (type !== undefined && type in SCALARS) return SCALARS[type];
  if (type === 'array') return { kind: 'list', items: shapeAt(itemsOf(schema), root, depth + 1) };
  if (type === 'object') return objectShapeOf(schema, root, depth);
  return DYN;
}

/** The one JSON type a schema declares, or infers from properties, `const` or a homogeneous `enum`. */
function declaredType(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.length === 1 && typeof type[0] === 'string' ? type[0] : undefined;
  if (isRecord(schema.properties) || isRecord(schema.additionalProperties)) return 'object';
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
  const kinds = new Set(values.map(jsonTypeOf));
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

function jsonTypeOf(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

function itemsOf(schema: Record<string, unknown>): JsonSchema | undefined {
  const items = schema.items;
  return typeof items === 'object' && items !== null && !Array.isArray(items) ? (items as JsonSchema) : undefined;
}

function objectShapeOf(schema: Record<string, unknown>, root: JsonSchema | undefined, depth: number): CelShape {
  const additional = schema.additionalProperties;
  const extra = additional === undefined || additional === false || additional === true
    ? DYN
    : shapeAt(additional as JsonSchema, root, depth + 1);
  if (!isRecord(schema.properties) || Object.keys(schema.properties).length === 0) {
    return { kind: 'map', values: additional === false ? DYN : extra };
  }
  const fields = new Map<string, CelShape>();
  for (const [name, property] of Object.entries(schema.properties)) {
    fields.set(name, shapeAt(property as JsonSchema, root, depth + 1));
  }
  const open = additional !== undefined && additional !== false;
  return { kind: 'object', fields, open, extra };
}

function resolveLocalRef(ref: string, root: JsonSchema | undefined): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node as JsonSchema | undefined;
}


/**
 * The shape reached by a path of names from `shape`, or where the path leaves what is declared: `missing` is the
 * index of the first name the object at that point does not declare, with that object's names as candidates.
 */
export type PathLookup =
  | { found: CelShape }
  | { missing: number; candidates: readonly string[] };

export function lookupPath(shape: CelShape, path: readonly string[]): PathLookup {
  let current = shape;
  for (let i = 0; i < path.length; i++) {
    if (current.kind === 'object') {
      const next = current.fields.get(path[i]);
      if (next !== undefined) current = next;
      else if (current.open) current = current.extra;
      else return { missing: i, candidates: [...current.fields.keys()] };
    } else if (current.kind === 'map') {
      current = current.values;
    } else {
      // Names into a scalar or a list are the type checker's to report (a type error), not an unknown field.
      return { found: DYN };
    }
  }
  return { found: current };
}

/** How a shape reads in messages: `int`, `list<string>`, `object`. */
export function describeShape(shape: CelShape): string {
  switch (shape.kind) {
    case 'list':
      return `list<${describeShape(shape.items)}>`;
    case 'map':
      return `map<string, ${describeShape(shape.values)}>`;
    default:
      return shape.kind;
  }
}
