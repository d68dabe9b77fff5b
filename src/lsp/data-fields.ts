/**
 * The data fields of a process as an editor follows them: declared in `spec.data` (or the schema file it
 * names), written by `start.set`, `correlate[].set`, `set` steps, `output.as` and `export.as`, read in
 * expressions as `data.<path>`. Places are the process's documents as the latest check loaded them.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { parseSyntax, walkSyntax } from '../cel/syntax.js';
import type { SourceDocument, Span } from '../json/document.js';
import { isRecord } from '../json/guards.js';
import { valueAt } from '../json/pointer.js';
import type { PackageObject } from '../model/package.js';
import { dataWrites, processDataSchema, processExpressions, processModel } from '../process/index.js';

/** A place that names a data field: a document and where in it. */
export interface DataPlace {
  document: SourceDocument;
  span: Span;
}

/** The data path under the cursor in the text of a line: `data.asset.id` up to the segment the cursor is on. */
export function dataPathAt(line: string, character: number): string[] | undefined {
  for (const match of line.matchAll(/(?<![\w.])data((?:\.\??[A-Za-z_]\w*)+)/g)) {
    const start = match.index;
    if (character < start || character > start + match[0].length) continue;
    const segments: string[] = [];
    let offset = start + 'data'.length;
    for (const part of match[1]!.split('.').slice(1)) {
      segments.push(part.replace(/^\?/, ''));
      offset += part.length + 1;
      if (character <= offset) break;
    }
    return segments;
  }
  return undefined;
}

/** The path being typed after `data.` at the end of `before` (the text of the line up to the cursor). */
export function typedDataPath(before: string): { parent: string[]; typed: string } | undefined {
  const match = /(?<![\w.])data((?:\.\??[A-Za-z_]\w*)*)\.\??(\w*)$/.exec(before);
  if (!match) return undefined;
  return { parent: match[1]!.split('.').slice(1).map((part) => part.replace(/^\?/, '')), typed: match[2]! };
}

/** The fields of data below `parent`: declared in the schema, then written by the process. */
export function dataCompletions(process: PackageObject, parent: readonly string[]): CompletionItem[] {
  const items = new Map<string, CompletionItem>();
  const schema = schemaAt(processDataSchema(process), parent);
  const properties = schema && isRecord(schema.properties) ? schema.properties : {};
  for (const [name, field] of Object.entries(properties)) {
    const described = isRecord(field) ? field : {};
    items.set(name, {
      label: name,
      kind: CompletionItemKind.Field,
      ...(typeof described.type === 'string' ? { detail: described.type } : {}),
      ...(typeof described.description === 'string' ? { documentation: described.description } : {}),
    });
  }
  for (const write of dataWrites(processModel(process.spec))) {
    const names = write.key.split('.');
    if (names.length <= parent.length || parent.some((name, index) => names[index] !== name)) continue;
    const name = names[parent.length]!;
    if (!items.has(name)) items.set(name, { label: name, kind: CompletionItemKind.Field, detail: 'written by the process' });
  }
  return [...items.values()];
}

/** Where the field at `path` is declared: its key in the data schema, when the schema declares it. */
export function dataDeclaration(process: PackageObject, path: readonly string[]): DataPlace | undefined {
  const document = process.data?.document ?? process.document;
  const base = process.data ? '' : '/spec/data';
  const pointer = `${base}${path.map((name) => `/properties/${name}`).join('')}`;
  if (path.length === 0 || valueAt(document.value, pointer) === undefined) return undefined;
  return { document, span: document.locate(pointer, 'key') };
}

/** Every write of the field at `path` (or of a field it holds, or one that holds it), key by key. */
export function dataWritesOf(process: PackageObject, path: readonly string[]): DataPlace[] {
  return dataWrites(processModel(process.spec))
    .filter((write) => overlaps(write.key.split('.'), path))
    .map((write) => ({ document: process.document, span: process.document.locate(write.pointer, 'key') }));
}

/** Every read of the field at `path` (or of a field below it) in the process's expressions. */
export function dataReadsOf(process: PackageObject, path: readonly string[]): DataPlace[] {
  const places: DataPlace[] = [];
  for (const expression of processExpressions(process.spec)) {
    const syntax = parseSyntax(expression.source);
    if (!syntax) continue;
    walkSyntax(syntax, (node) => {
      if (node.kind !== 'path' || node.root !== 'data' || !startsWith(node.segments, path)) return;
      const start = process.document.locateInScalar(expression.pointer, node.start);
      const end = process.document.locateInScalar(expression.pointer, node.end);
      places.push({ document: process.document, span: { line: start.line, column: start.column, endLine: end.line, endColumn: end.column } });
    });
  }
  return places;
}

/** The data path a write key names, when the cursor is on the key of `set`, `output.as` or `export.as`. */
export function writtenKeyAt(path: readonly (string | number)[]): string[] | undefined {
  const holder = path[path.length - 2];
  return holder === 'set' || holder === 'as' ? String(path[path.length - 1]).split('.') : undefined;
}

function schemaAt(schema: Record<string, unknown> | undefined, path: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = schema;
  for (const name of path) node = isRecord(node) && isRecord(node.properties) ? node.properties[name] : undefined;
  return isRecord(node) ? node : undefined;
}

function startsWith(segments: readonly string[], path: readonly string[]): boolean {
  return path.length > 0 && path.every((name, index) => segments[index] === name);
}

function overlaps(a: readonly string[], b: readonly string[]): boolean {
  return startsWith(a, b) || startsWith(b, a);
}

