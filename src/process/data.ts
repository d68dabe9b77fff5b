/**
 * The data of a process: its JSON Schema (inline or in a file of its own) and what a data path names in it.
 */
import { pointerSegments } from '../json/pointer.js';
import type { PackageObject } from '../model/package.js';
import { isRecord } from '../json/guards.js';

/** `/spec/stages/0/steps/2` → `spec.stages[0].steps[2]`: how a message names a place in a process. */
export function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

/** The JSON Schema of a process's data: `spec.data`, or the file its `{$ref}` names (loaded with the package). */
export function processDataSchema(process: PackageObject): Record<string, unknown> | undefined {
  if (process.data !== undefined) return isRecord(process.data.document.value) ? process.data.document.value : undefined;
  return isRecord(process.spec.data) ? process.spec.data : undefined;
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
