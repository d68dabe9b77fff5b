/**
 * The elements of a Process (compat-package-sdk-check.md §2.6): every mapping with a string `id` in the spec
 * — stages, steps at any depth, milestones, timers, fork branches, decision tables — as the migration map,
 * the log and package tests name them. Values that are data rather than structure (schemas, forms, CEL maps,
 * memory projections, migrations, …) are not searched: an `id` there is a field, not an element.
 */
import { forEachAt } from '../cel/json-path.js';
import { isMapping } from '../load/package.js';
import { childPointer, pointerSegments } from '../load/pointer.js';
import type { PackageObject } from './package.js';

/** Keys whose values hold no elements of the process. */
const NOT_STRUCTURE: ReadonlySet<string> = new Set([
  'data',
  'form',
  'memory',
  'input',
  'set',
  'output',
  'export',
  'migrations',
  'governedBy',
  'retrospective',
  'context',
  'customFields',
]);

export interface ProcessElement {
  id: string;
  /** JSON Pointer of the element's mapping (`/spec/stages/0/steps/2`). */
  pointer: string;
  /** The element's mapping. */
  node: Record<string, unknown>;
  /** A decision table of `spec.decisions` (not a step: it is named by `decide.table`). */
  table: boolean;
}

/** Every element of the process `spec`, in document order (a parent before what it holds). */
export function processElements(spec: Record<string, unknown>): ProcessElement[] {
  const elements: ProcessElement[] = [];
  const visit = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, childPointer(pointer, index)));
      return;
    }
    if (!isMapping(value)) return;
    if (typeof value.id === 'string') elements.push({ id: value.id, pointer, node: value, table: false });
    for (const [key, item] of Object.entries(value)) if (!NOT_STRUCTURE.has(key)) visit(item, childPointer(pointer, key));
  };
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'decisions') visitTables(value, elements);
    else if (!NOT_STRUCTURE.has(key)) visit(value, childPointer('/spec', key));
  }
  return elements;
}

/** Decision tables are elements; their inputs, outputs and rules are not. */
function visitTables(decisions: unknown, elements: ProcessElement[]): void {
  if (!Array.isArray(decisions)) return;
  decisions.forEach((table, index) => {
    if (isMapping(table) && typeof table.id === 'string') {
      elements.push({ id: table.id, pointer: childPointer('/spec/decisions', index), node: table, table: true });
    }
  });
}

/** `/spec/stages/0/steps/2` → `spec.stages[0].steps[2]`: how a message names a place in a process. */
/** The step kinds that may carry a `due` deadline (and so an SLA). */
export const STEP_KINDS_WITH_DUE = ['human', 'approve', 'call', 'recall', 'listen'] as const;

export function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

/** The JSON Schema of a process's data: `spec.data`, or the file its `{$ref}` names (loaded with the package). */
export function processDataSchema(process: PackageObject): Record<string, unknown> | undefined {
  if (process.data !== undefined) return isMapping(process.data.document.value) ? process.data.document.value : undefined;
  return isMapping(process.spec.data) ? process.spec.data : undefined;
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
    if (!isMapping(properties)) return { schema: {} };
    const next = properties[path[i]!];
    if (Object.hasOwn(properties, path[i]!) && isMapping(next)) {
      current = resolveLocalRef(next, root);
      continue;
    }
    const additional = current.additionalProperties;
    if (additional !== undefined && additional !== false) return { schema: isMapping(additional) ? additional : {} };
    return { missing: i, declared: Object.keys(properties) };
  }
  return { schema: current };
}

/** `{$ref: '#/$defs/x'}` → the schema it names in `root` (anything else as it is). */
function resolveLocalRef(schema: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && current.$ref.startsWith('#/') && hops < 8; hops++) {
    let node: unknown = root;
    for (const segment of pointerSegments(current.$ref.slice(1))) node = isMapping(node) ? node[segment] : undefined;
    if (!isMapping(node)) return {};
    current = node;
  }
  return current;
}

/** A sequence of steps of a process (a `blocks` value): run top to bottom. */
export interface ProcessBlock {
  steps: readonly unknown[];
  /** JSON Pointer of the array. */
  pointer: string;
}

/** Where a step holds blocks of its own (paths below the step; `*` is every item). */
const NESTED_BLOCKS: readonly (readonly string[])[] = [
  ['do'],
  ['onCompensate'],
  ['try', 'do'],
  ['try', 'catch', '*', 'do'],
  ['fork', 'branches', '*', 'do'],
  ['listen', 'any', '*', 'do'],
  ['listen', 'onTimeout'],
  ['recall', 'onTimeout'],
];

/** Where the spec holds blocks: stage steps, timers, event handlers, correlations. */
const SPEC_BLOCKS: readonly (readonly string[])[] = [
  ['stages', '*', 'steps'],
  ['stages', '*', 'timers', '*', 'do'],
  ['timers', '*', 'do'],
  ['onEvent', '*', 'do'],
  ['correlate', '*', 'do'],
];

/**
 * Every block of steps of the process `spec`, outer blocks before the blocks their steps hold. Discretionary
 * work is not a block: a person adds it, in no order.
 */
export function processBlocks(spec: Record<string, unknown>): ProcessBlock[] {
  const blocks: ProcessBlock[] = [];
  const visit = (steps: unknown, pointer: string): void => {
    if (!Array.isArray(steps)) return;
    blocks.push({ steps, pointer });
    steps.forEach((step, index) => {
      for (const path of NESTED_BLOCKS) forEachAt(step, path, childPointer(pointer, index), visit);
    });
  };
  for (const path of SPEC_BLOCKS) forEachAt(spec, path, '/spec', visit);
  return blocks;
}
