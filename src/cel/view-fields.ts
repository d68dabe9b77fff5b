/**
 * Which fields of a View or a Component are CEL expressions, as data (`VIEW_FIELDS`, read like `PROCESS_FIELDS`),
 * plus `viewExpressions` that walks a screen spec by it and `viewProfile` that builds its environment's profile.
 *
 * Screen expressions see `data` (the fields of the source's records: a process's data), `param.<name>` (the
 * view's params and the `id` of the record it was opened for; a component's params) and `settings`. A view over
 * a process also sees the process's variables and the record's `id`, `status` and `slaState`. Aggregates
 * (`count()`, `sum(x)`, …) are allowed only in metrics and chart blocks.
 */
import { childPointer } from '../json/pointer.js';
import type { Profile } from './environment.js';
import type { Expected } from './check.js';
import { forEachAt, forEachEntry } from '../json/walk.js';
import { SIMPLE_TYPE_SCHEMAS, type JsonSchema } from './types.js';
import { isRecord } from '../json/guards.js';

export interface ViewField {
  expected: Expected;
  /** Every value of the mapping at the path is an expression. */
  map?: true;
  /** Aggregates over the records are allowed here. */
  aggregates?: true;
}

/** Fields of the spec (`source/filter`) and of each layout block (`layout/*` + the path here). */
export const VIEW_FIELDS: { spec: Readonly<Record<string, ViewField>>; block: Readonly<Record<string, ViewField>> } = {
  spec: {
    'source/filter': { expected: 'bool' },
    'source/instance': { expected: 'string' },
  },
  block: {
    'columns/*/value': { expected: undefined },
    'items/*/value': { expected: undefined, aggregates: true },
    'card/fields/*/value': { expected: undefined },
    value: { expected: undefined, aggregates: true },
    'open/id': { expected: undefined },
    'open/params': { expected: undefined, map: true },
    with: { expected: undefined, map: true },
    input: { expected: undefined, map: true },
    'knowledge/key': { expected: 'string' },
  },
};

/** Blocks whose `items[].value` / `value` aggregate; elsewhere (`fields` items) the same paths do not. */
const AGGREGATING_BLOCKS = new Set(['metrics', 'chart']);

export interface ViewExpression {
  pointer: string;
  source: string;
  expected: Expected;
  /** Check with a profile that has `aggregates: true`. */
  aggregates: boolean;
}

/** The record of a process source, at the top level of a view's expressions: never null. */
export const PROCESS_RECORD_SCHEMA: Readonly<Record<string, JsonSchema>> = {
  id: { type: 'string' },
  status: { type: 'string' },
  slaState: { type: 'string' },
};

export interface ViewProfileOptions {
  /** The data schema of the source process (its `spec.data`, `$ref`s resolved). */
  data?: JsonSchema;
  /** The package settings schema. */
  settings?: JsonSchema;
  /** The package of the screen, for messages about its settings. */
  settingsPackage?: string;
  /** The view's source is a process with these stages: the process's variables and its record's fields exist. */
  stages?: readonly string[];
}

/** A param's type: text, uuid and date are nullable text, datetime a nullable instant, numbers and booleans nullable. */
const PARAM_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...SIMPLE_TYPE_SCHEMAS,
  date: { type: ['string', 'null'] },
  uuid: { type: ['string', 'null'] },
  string: { type: ['string', 'null'] },
  integer: { type: ['integer', 'null'] },
  number: { type: ['number', 'null'] },
  boolean: { type: ['boolean', 'null'] },
};

/**
 * The profile of a View (`kind: 'View'`) or a Component. Params typed by a schema (`params.<n>.schema`) must
 * have their `$ref`s resolved by the caller.
 */
export function viewProfile(kind: 'View' | 'Component', spec: unknown, options: ViewProfileOptions = {}): Profile {
  const params: Record<string, JsonSchema> = kind === 'View' ? { id: { type: ['string', 'null'] } } : {};
  const declared = isRecord(spec) && isRecord(spec.params) ? spec.params : {};
  for (const [name, param] of Object.entries(declared)) {
    if (!isRecord(param)) continue;
    params[name] = isRecord(param.schema) ? param.schema : PARAM_SCHEMAS[String(param.type)] ?? {};
  }
  const profile: Profile = { kind: 'view', params };
  if (options.data !== undefined) profile.data = options.data;
  if (options.settings !== undefined) profile.settings = options.settings;
  if (options.settingsPackage !== undefined) profile.settingsPackage = options.settingsPackage;
  if (options.stages !== undefined) {
    profile.stages = options.stages;
    profile.extraVariables = PROCESS_RECORD_SCHEMA;
  }
  return profile;
}

/** Every expression of a View or Component spec, in document order. */
export function viewExpressions(spec: unknown, pointer = '/spec'): ViewExpression[] {
  const found: ViewExpression[] = [];
  if (!isRecord(spec)) return found;
  collect(found, spec, pointer, VIEW_FIELDS.spec, false);
  const layout = Array.isArray(spec.layout) ? spec.layout : [];
  layout.forEach((block, i) => {
    if (isRecord(block)) collect(found, block, childPointer(`${pointer}/layout`, i), VIEW_FIELDS.block, AGGREGATING_BLOCKS.has(String(block.block)));
  });
  return found;
}

function collect(found: ViewExpression[], owner: Record<string, unknown>, pointer: string, fields: Readonly<Record<string, ViewField>>, aggregating: boolean): void {
  for (const [path, field] of Object.entries(fields)) {
    const aggregates = aggregating && field.aggregates === true;
    const add = (source: unknown, at: string) => {
      if (typeof source === 'string') found.push({ pointer: at, source, expected: field.expected, aggregates });
    };
    forEachAt(owner, path.split('/'), pointer, (value, at) => (field.map === true ? forEachEntry(value, at, add) : add(value, at)));
  }
}
