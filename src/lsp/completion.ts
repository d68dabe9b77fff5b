/**
 * Completion in a package file: the `kind`, the fields of the mapping being written (from the schema, with
 * the reference's text), and the values of a field — the keys of the objects the field names, or the values
 * its schema allows.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import { expressionCompletions } from './cel-types.js';
import { dataCompletions, typedDataPath } from './data-fields.js';
import { objectNamedAt, objectsOf } from './package-graph.js';
import { processModel } from '../process/index.js';
import { documentTypeOf, fieldAt, fieldsAt, type DocumentType } from './schema-fields.js';
import { keyBeforeCursor, placeAt, typingKey, type YamlPath } from './yaml-place.js';

export interface CompletionContext {
  text: string;
  offset: number;
  workspace: Workspace | undefined;
  /** The process the buffer declares, for the data fields of its expressions. */
  process?: PackageObject | undefined;
}

export function completionsAt(context: CompletionContext): CompletionItem[] {
  const { text, offset } = context;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const line = text.slice(lineStart, offset);
  const type = documentTypeOf(text);
  const typedData = context.process && typedDataPath(line);
  const fields = typedData ? dataCompletions(context.process!, typedData.parent) : [];
  if (fields.length > 0) return fields; // a field of data with fields; else what its type offers
  const expression = context.process && expressionPlace(text, offset);
  if (expression) {
    const items = expressionCompletions(context.process!, context.workspace?.package(context.process!.package), expression, line);
    if (items.length > 0) return items;
  }
  const typedValue = keyBeforeCursor(line);
  if (typedValue) {
    const keyOffset = lineStart + line.lastIndexOf(`${typedValue.key}:`);
    const path = placeAt(text, keyOffset)?.path ?? [typedValue.key];
    return valueCompletions(path, type, context);
  }
  if (typingKey(line)) return fieldsAt(parentPath(text, lineStart, line), type).map((field) => ({
    label: field.name,
    kind: CompletionItemKind.Field,
    ...(field.description !== undefined ? { documentation: { kind: 'markdown', value: field.description } } : {}),
    insertText: `${field.name}: `,
  }));
  return [];
}

/** The path of the string value under the cursor, when the cursor is inside one (an expression being written). */
function expressionPlace(text: string, offset: number): YamlPath | undefined {
  const place = placeAt(text, offset);
  return place?.part === 'value' && typeof place.scalar?.value === 'string' && offset > place.scalar.start ? place.path : undefined;
}


function valueCompletions(path: YamlPath, type: DocumentType, context: CompletionContext): CompletionItem[] {
  const workspace = context.workspace;
  if (path.length === 1 && path[0] === 'kind') return (fieldAt(['kind'], { schema: 'object.schema.json' })?.values ?? []).map((name) => ({ label: String(name), kind: CompletionItemKind.Class }));
  const named = objectNamedAt(path, '');
  if (named && workspace) {
    return objectsOf(workspace).filter((object) => object.kind === named.kind).map((object) => ({
      label: named.kind === 'Skill' || named.kind === 'KnowledgePack' ? `${object.key}@${majorOf(object.version ?? String(object.spec.version ?? '1'))}` : object.key,
      kind: CompletionItemKind.Reference,
      detail: `${object.kind} · ${object.file}`,
      ...(typeof object.spec.displayName === 'string' ? { documentation: object.spec.displayName } : {}),
    }));
  }
  const elements = elementCompletions(path, type, context);
  if (elements.length > 0) return elements;
  return (fieldAt(path, type)?.values ?? []).map((value) => ({ label: String(value), kind: CompletionItemKind.EnumMember }));
}

/**
 * Ids of the elements of a process: a decision table after `decide.table`, a step after `compensate` — and in a
 * test, a step after `step` or `task` (the process the test names).
 */
function elementCompletions(path: YamlPath, type: DocumentType, context: CompletionContext): CompletionItem[] {
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  const [key, enclosing] = [keys[keys.length - 1], keys[keys.length - 2]];
  const inTest = type.schema === 'test.schema.json';
  const table = key === 'table' && enclosing === 'decide';
  const step = key === 'compensate' || (inTest && (key === 'step' || key === 'task'));
  if (!table && !step) return [];
  const process = inTest ? testedProcess(context) : context.process;
  if (!process) return [];
  return processModel(process.spec).elements.filter((element) => element.table === table).map((element) => ({
    label: element.id,
    kind: table ? CompletionItemKind.Struct : CompletionItemKind.Function,
    ...(typeof element.node.displayName === 'string' ? { detail: element.node.displayName } : {}),
  }));
}

/** The Process a test buffer names by its top-level `process:`. */
function testedProcess(context: CompletionContext): PackageObject | undefined {
  const key = /^process:\s*["']?([\w.-]+)/m.exec(context.text)?.[1];
  return context.workspace && key !== undefined ? objectsOf(context.workspace).find((object) => object.kind === 'Process' && object.key === key) : undefined;
}

function majorOf(version: string): string {
  return version.split('.')[0]!;
}

/**
 * The path of the mapping a new key on this line goes into: the nearest line above that is indented less —
 * `key:` opens the mapping, `- key: …` a list item whose mapping the line continues.
 */
function parentPath(text: string, lineStart: number, line: string): YamlPath {
  const indent = indentOf(line);
  let end = lineStart - 1;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const above = text.slice(start, end);
    end = start - 1;
    if (/^\s*(#.*)?$/.test(above)) continue;
    const opener = /^(\s*)(-\s+)?([\w$.-]+):/.exec(above);
    const keyPath = (): YamlPath => placeAt(text, start + opener![1]!.length + (opener![2]?.length ?? 0))?.path ?? [];
    if (opener?.[2] && indentOf(above) === indent) return keyPath().slice(0, -1); // a sibling in a list item
    if (/^\s*/.exec(above)![0].length >= indent) continue;
    if (!opener) return [];
    return opener[2] ? keyPath().slice(0, -1) : keyPath();
  }
  return [];
}

/** Where the content of a line starts: after its spaces and a list item's dash. */
function indentOf(line: string): number {
  return /^\s*(-\s+)?/.exec(line)![0].length;
}
