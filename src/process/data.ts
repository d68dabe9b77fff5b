/**
 * The data of a process: its JSON Schema (inline or in a file of its own) and what a data path names in it.
 */
import { pointerSegments } from '../json/pointer.js';
import type { PackageObject } from '../model/package.js';
import { isRecord } from '../json/guards.js';
import { jsonSchemaProblem } from '../schema/json-schema.js';

/** The JSON Schema of a process's data: `spec.data`, or the file its `{$ref}` names (loaded with the package). */
export function processDataSchema(process: PackageObject): Record<string, unknown> | undefined {
  if (process.data !== undefined) return isRecord(process.data.document.value) ? process.data.document.value : undefined;
  return isRecord(process.spec.data) ? process.spec.data : undefined;
}

/** Why a data schema cannot type the data of an instance: where it is wrong (under `/spec/data`), and how. */
export interface DataSchemaProblem {
  pointer: string;
  message: string;
  /** The values the metaschema allows there, when it names them. */
  allowed?: readonly string[];
}

const dataProblems = new WeakMap<object, DataSchemaProblem | null>();

/**
 * Why the core refuses a process's data schema (compat-core-validators.md §2.4): it is no JSON Schema (Draft
 * 2020-12), or it does not describe an object. Undefined when it can type the data. Judged once per schema.
 */
export function dataSchemaProblem(data: Record<string, unknown>): DataSchemaProblem | undefined {
  let problem = dataProblems.get(data);
  if (problem === undefined) dataProblems.set(data, (problem = judgeDataSchema(data) ?? null));
  return problem ?? undefined;
}

/** The data schema expressions are typed by: none when the core refuses it, so that data reads as untyped. */
export function typingDataSchema(data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return data !== undefined && dataSchemaProblem(data) === undefined ? data : undefined;
}

function judgeDataSchema(data: Record<string, unknown>): DataSchemaProblem | undefined {
  const problem = jsonSchemaProblem(data);
  if (problem !== undefined) return { ...problem, pointer: `/spec/data${problem.pointer}`, message: `spec.data is not a JSON Schema: ${problem.message}` };
  if (data.type !== 'object') return { pointer: '/spec/data', message: 'the data of an instance is an object: spec.data needs type: object' };
  return undefined;
}

/** Where a data path leads in a data schema: the field's schema, or the first name no schema there declares. */
export type DataFieldLookup = { schema: Record<string, unknown> } | { missing: number; declared: string[] };

/**
 * The schema of the data field at `path` (`['purchase', 'number']`), following `properties` and local `$ref`s.
 * Below a schema that declares no properties (a map, an untyped value) any name is accepted, with an empty schema.
 */
export function lookupDataField(root: Record<string, unknown>, path: readonly string[]): DataFieldLookup {
  let current = resolveLocalRef(root, root);
  for (let i = 0; i < path.length; i++) {
    const properties = current.properties;
    if (!isRecord(properties)) return { schema: {} };
    const next = properties[path[i]!];
    if (Object.hasOwn(properties, path[i]!) && isRecord(next)) {
      current = resolveLocalRef(next, root);
      continue;
    }
    const additional = current.additionalProperties;
    if (additional !== undefined && additional !== false) return { schema: isRecord(additional) ? additional : {} };
    return { missing: i, declared: Object.keys(properties) };
  }
  return { schema: current };
}

/** `{$ref: '#/$defs/x'}` → the schema it names in `root` (anything else as it is). */
function resolveLocalRef(schema: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && current.$ref.startsWith('#/') && hops < 8; hops++) {
    let node: unknown = root;
    for (const segment of pointerSegments(current.$ref.slice(1))) node = isRecord(node) ? node[segment] : undefined;
    if (!isRecord(node)) return {};
    current = node;
  }
  return current;
}

/**
 * Where a written key (`a.b.c` of `set`, `output.as`, `call.input`, …) leads in its target schema, as the core
 * resolves it: through `properties`, or through `additionalProperties` where a node declares no properties.
 * `field` is the schema written (undefined where the schema says nothing definite: nothing is judged); `missing`
 * the index of the first name a node with properties does not declare.
 */
export type WriteTarget = { field?: Record<string, unknown> } | { missing: number; declared: string[] };

export function writeTarget(root: Record<string, unknown>, path: readonly string[]): WriteTarget {
  let current: Record<string, unknown> = root;
  for (let i = 0; i < path.length; i++) {
    const properties = current.properties;
    if (isRecord(properties) && Object.keys(properties).length > 0) {
      const next = Object.hasOwn(properties, path[i]!) ? properties[path[i]!] : undefined;
      if (next === undefined) return { missing: i, declared: Object.keys(properties) };
      if (!isRecord(next)) return {};
      current = next;
      continue;
    }
    if (!isRecord(current.additionalProperties)) return {};
    current = current.additionalProperties;
  }
  return { field: current };
}

/** The JSON types a schema's `type` names (`'integer'` or `['string', 'null']`); empty when it names none. */
export function jsonTypesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** The JSON types a value of a CEL type can be written as (compat-core-validators.md §2.7). */
const JSON_TYPES_OF_CEL: Readonly<Record<string, readonly string[]>> = {
  string: ['string'],
  bytes: ['string'],
  timestamp: ['string'],
  duration: ['string'],
  int: ['integer', 'number'],
  uint: ['integer', 'number'],
  double: ['number'],
  bool: ['boolean'],
  list: ['array'],
  map: ['object'],
  null: ['null'],
};

/**
 * Whether an expression of CEL type `general` (`int`, `list`, `map` for objects, `dyn`, …) fits a field whose JSON
 * types are `types`: dyn and a field without a type always do; a double does not fit an integer field, nor null a
 * field that does not list `null`.
 */
export function celTypeFits(general: string, types: readonly string[]): boolean {
  if (types.length === 0 || general === 'dyn') return true;
  const accepted = JSON_TYPES_OF_CEL[general];
  return accepted === undefined || accepted.some((type) => types.includes(type));
}
