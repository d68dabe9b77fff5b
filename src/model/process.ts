/**
 * The elements of a Process (compat-package-sdk-check.md §2.6): every mapping with a string `id` in the spec
 * — stages, steps at any depth, milestones, timers, fork branches, decision tables — as the migration map,
 * the log and package tests name them. Values that are data rather than structure (schemas, forms, CEL maps,
 * memory projections, migrations, …) are not searched: an `id` there is a field, not an element.
 */
import { isMapping } from '../load/package.js';
import { childPointer } from '../load/pointer.js';

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
export function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}
