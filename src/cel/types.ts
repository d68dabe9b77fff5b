import { isRecord } from '../json/guards.js';

/** The name our object types carry inside the library; messages strip it. */
export const OBJECT_TYPE_PREFIX = 'taimen.';
/**
 * CEL types of the `cp/1` profile, derived from JSON Schema exactly as the core derives them (compat-core-cel.md §3).
 *
 * A schema becomes a small tree of `CelShape`s first; the same tree then
 *  - registers the object types of an environment (so the type checker knows `data.amount` is a double),
 *  - tells the checker which names a path may use (an undeclared field of a typed object is a type error),
 *  - converts JSON values into CEL values for evaluation (integers to BigInt, date-times to Date).
 *
 * Mapping: an object whose `properties` are all CEL names is a closed message (`additionalProperties` does not
 * open it); any other object is `map(string, dyn)`, except a field whose `additionalProperties` is such a message
 * (a map of messages). string/integer/number/boolean fields are plain scalars when the parent requires them and
 * they are not nullable, else nullable (they read null when unset: `== null` type-checks). `format: date-time` is a
 * timestamp, `format: duration` a duration. Arrays are lists of plain scalars, instants, durations or messages,
 * else of dyn. `$ref`, `anyOf`/`oneOf`/`allOf`, `const`, several types, an empty schema: dyn — the core resolves no
 * `$ref` inside a schema.
 */

export type JsonSchema = Record<string, unknown> | boolean;

export type ScalarKind = 'int' | 'uint' | 'double' | 'bool' | 'string';

export type CelShape =
  | { kind: 'dyn' | 'timestamp' | 'duration' }
  /** `nullable`: a protobuf wrapper — reads null when unset, `== null` type-checks. */
  | { kind: ScalarKind; nullable?: true }
  | { kind: 'list'; items: CelShape }
  | { kind: 'map'; values: CelShape }
  /** A closed message: a field it does not declare is a compile-time error. `name` is its CEL path (`data.purchase`). */
  | { kind: 'object'; fields: ReadonlyMap<string, CelShape>; name: string };

/**
 * JSON Schemas of the simple type names other formats use: a view param's `type`, a decision table output's
 * `type`. Dates stay strings; date-times and timestamps are instants; durations are durations.
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
  duration: { type: 'string', format: 'duration' },
  object: { type: 'object' },
  array: { type: 'array' },
};

export const DYN: CelShape = { kind: 'dyn' };
export const STRING: CelShape = { kind: 'string' };
export const INT: CelShape = { kind: 'int' };
export const BOOL: CelShape = { kind: 'bool' };
export const TIMESTAMP: CelShape = { kind: 'timestamp' };
export const DURATION: CelShape = { kind: 'duration' };
export const DYN_MAP: CelShape = { kind: 'map', values: DYN };
export const NULLABLE_STRING: CelShape = { kind: 'string', nullable: true };
export const NULLABLE_INT: CelShape = { kind: 'int', nullable: true };

export function objectShape(name: string, fields: Record<string, CelShape>): CelShape {
  return { kind: 'object', fields: new Map(Object.entries(fields)), name };
}

const SCALARS: Readonly<Record<string, ScalarKind>> = { integer: 'int', number: 'double', boolean: 'bool', string: 'string' };

/** CEL's reserved words: a property named so cannot be selected, so its object is an untyped map. */
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'false', 'for', 'function', 'if', 'import', 'in', 'let', 'loop', 'package',
  'namespace', 'null', 'return', 'true', 'var', 'void', 'while',
]);
const SELECTABLE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Whether `name` can be written after a dot in CEL (and so be a field of a message). */
export function isSelectable(name: string): boolean {
  return SELECTABLE.test(name) && !RESERVED.has(name);
}

/** Schemas nest; a pathological one must not recurse forever. */
const MAX_DEPTH = 64;

export interface ShapeOptions {
  /** The settings: `required` is ignored at every level, so every scalar is nullable. */
  ignoreRequired?: boolean;
}

/** The CEL shape of the schema of a variable named `name` (`data`, `settings`, …). */
export function shapeOf(schema: JsonSchema | undefined, name: string, options: ShapeOptions = {}): CelShape {
  const shape = new ShapeBuilder(options).property(schema, name, true, 0);
  // At the top of a variable only a message is typed; any other object (a map of messages included) is a Struct.
  return shape.kind === 'map' ? DYN_MAP : shape;
}

class ShapeBuilder {
  constructor(private readonly options: ShapeOptions) {}

  /** The shape of a property; `required` as its parent says. */
  property(schema: JsonSchema | undefined, path: string, required: boolean, depth: number): CelShape {
    if (!isRecord(schema) || depth > MAX_DEPTH || untypable(schema)) return DYN;
    const single = singleType(schema);
    if (single === undefined) return DYN;
    const { type, nullable } = single;
    if (type === 'string' && schema.format === 'date-time') return TIMESTAMP;
    if (type === 'string' && schema.format === 'duration') return DURATION;
    const scalar = SCALARS[type];
    if (scalar !== undefined) return required && !nullable && this.options.ignoreRequired !== true ? { kind: scalar } : { kind: scalar, nullable: true };
    if (type === 'array') return { kind: 'list', items: this.item(schema.items, `${path}[]`, depth + 1) };
    if (type === 'object') return this.object(schema, path, depth);
    return DYN;
  }

  /** An array's item: scalars are plain, objects with typed properties messages, anything else dyn. */
  private item(schema: unknown, path: string, depth: number): CelShape {
    if (!isRecord(schema) || untypable(schema)) return DYN;
    const shape = this.property(schema, path, true, depth);
    if (shape.kind === 'list' || shape.kind === 'map') return DYN;
    return 'nullable' in shape ? { kind: shape.kind } : shape;
  }

  private object(schema: Record<string, unknown>, path: string, depth: number): CelShape {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const names = Object.keys(properties);
    if (names.length > 0) {
      if (!names.every(isSelectable)) return DYN_MAP;
      const required = new Set(Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === 'string') : []);
      const fields = new Map<string, CelShape>();
      for (const name of names) fields.set(name, this.property(properties[name] as JsonSchema, `${path}.${name}`, required.has(name), depth + 1));
      return { kind: 'object', fields, name: path };
    }
    const additional = schema.additionalProperties;
    if (isRecord(additional)) {
      const values = this.property(additional, `${path}[]`, true, depth + 1);
      if (values.kind === 'object') return { kind: 'map', values };
    }
    return DYN_MAP;
  }
}

/** `$ref`, combinators and `const` make a schema the core does not type. */
function untypable(schema: Record<string, unknown>): boolean {
  return '$ref' in schema || 'anyOf' in schema || 'oneOf' in schema || 'allOf' in schema;
}

/** A schema's one JSON type: `type`, a type list with one non-null entry, a string enum, or `properties`. */
function singleType(schema: Record<string, unknown>): { type: string; nullable: boolean } | undefined {
  const type = schema.type;
  if (typeof type === 'string') return { type, nullable: false };
  if (Array.isArray(type)) {
    const concrete = type.filter((t) => t !== 'null');
    return concrete.length === 1 && typeof concrete[0] === 'string' ? { type: concrete[0], nullable: concrete.length < type.length } : undefined;
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === 'string')) return { type: 'string', nullable: false };
  if (isRecord(schema.properties)) return { type: 'object', nullable: false };
  return undefined;
}

/**
 * The shape reached by a path of names from `shape`, or where the path leaves what is declared: `missing` is the
 * index of the first name the message at that point does not declare, with that message.
 */
export type PathLookup =
  | { found: CelShape }
  | { missing: number; owner: Extract<CelShape, { kind: 'object' }> };

/** One step of a path: a field or string key, or a list index. */
export type PathStep = string | number;

export function lookupPath(shape: CelShape, path: readonly PathStep[]): PathLookup {
  let current = shape;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    if (current.kind === 'object' && typeof step === 'string') {
      const next = current.fields.get(step);
      if (next === undefined) return { missing: i, owner: current };
      current = next;
    } else if (current.kind === 'map' && typeof step === 'string') {
      current = current.values;
    } else if (current.kind === 'list' && typeof step === 'number') {
      current = current.items;
    } else {
      // Anything else is the type checker's to report (an index into a scalar, a number into a map).
      return { found: DYN };
    }
  }
  return { found: current };
}

/** How a shape reads in messages: `int`, `list<string>`, the message's path. */
export function describeShape(shape: CelShape): string {
  switch (shape.kind) {
    case 'list':
      return `list<${describeShape(shape.items)}>`;
    case 'map':
      return `map<string, ${describeShape(shape.values)}>`;
    case 'object':
      return shape.name;
    default:
      return shape.kind;
  }
}
