/**
 * Go to definition, find references and rename for object keys: a value that names an object (`taskType:
 * site-inspection`), or the `key` of an object file. Rename is `edit rename`'s: the key, the file named by it,
 * every reference in the package and its tests, and the manifest's `renames` entry where the core needs one.
 */
import { relative } from 'node:path';
import { ErrorCodes, ResponseError, type Location, type Range, type WorkspaceEdit } from 'vscode-languageserver';
import { renameObject } from '../author/edit/rename.js';
import type { SourceDocument } from '../json/document.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import { dataDeclaration, dataPathAt, dataReadsOf, dataWritesOf, writtenKeyAt } from './data-fields.js';
import { declarationOf, mentionsOf, objectNamedAt, objectOfDocument, type NamedObject } from './package-graph.js';
import { locationOf, uriOf } from './ranges.js';
import type { WorkspaceCheck } from './workspace-check.js';
import { placeAt } from './yaml-place.js';

/** Where the cursor names an object: which one, and the range of the name. */
export interface NameAtCursor {
  named: NamedObject;
  range: Range;
}

export function nameAt(checked: WorkspaceCheck, path: string, text: string, offset: number): NameAtCursor | undefined {
  const workspace = checked.latest?.workspace;
  const place = placeAt(text, offset);
  if (!workspace || place?.part !== 'value' || typeof place.scalar?.value !== 'string') return undefined;
  const value = place.scalar.value;
  const range = { start: positionOf(text, place.scalar.start), end: positionOf(text, place.scalar.end) };
  if (place.path.length === 1 && place.path[0] === 'key') {
    const object = objectOfDocument(workspace, documentAt(checked, workspace, path));
    return object ? { named: { kind: object.kind, key: object.key }, range } : undefined;
  }
  const named = objectNamedAt(place.path, value);
  return named ? { named, range } : undefined;
}

/** The data path under the cursor in a process: in an expression (`data.asset.id`), or a key that writes data. */
export function dataFieldAt(checked: WorkspaceCheck, path: string, text: string, offset: number): { process: PackageObject; field: string[] } | undefined {
  const process = processAt(checked, path);
  if (!process) return undefined;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const place = placeAt(text, offset);
  const field = dataPathAt(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd), offset - lineStart) ?? (place?.part === 'key' ? writtenKeyAt(place.path) : undefined);
  return field ? { process, field } : undefined;
}

/** The process the file at `path` declares, as the latest check loaded it. */
export function processAt(checked: WorkspaceCheck, path: string): PackageObject | undefined {
  const workspace = checked.latest?.workspace;
  const object = workspace && objectOfDocument(workspace, documentAt(checked, workspace, path));
  return object?.kind === 'Process' ? object : undefined;
}

/** Where a data field is declared in the data schema, else where the process first writes it. */
export function dataDefinition(checked: WorkspaceCheck, process: PackageObject, field: readonly string[]): Location | undefined {
  const place = dataDeclaration(process, field) ?? dataWritesOf(process, field)[0];
  return place && locationOf(checked.pathOf(place.document.file), place.span, place.document.text);
}

/** The declaration, the writes and the reads of a data field. */
export function dataReferences(checked: WorkspaceCheck, process: PackageObject, field: readonly string[], includeDeclaration: boolean): Location[] {
  const declaration = includeDeclaration ? dataDeclaration(process, field) : undefined;
  const places = [...(declaration ? [declaration] : []), ...dataWritesOf(process, field), ...dataReadsOf(process, field)];
  return places.map((place) => locationOf(checked.pathOf(place.document.file), place.span, place.document.text));
}

export function definitionOf(checked: WorkspaceCheck, named: NamedObject): Location | undefined {
  const object = checked.latest && declarationOf(checked.latest.workspace, named);
  return object && locationOf(checked.pathOf(object.document.file), object.document.locate('/key'), object.document.text);
}

export function referencesTo(checked: WorkspaceCheck, named: NamedObject, includeDeclaration: boolean): Location[] {
  const workspace = checked.latest?.workspace;
  if (!workspace) return [];
  const mentions = mentionsOf(workspace, named).map(({ document, pointer }) => locationOf(checked.pathOf(document.file), document.locate(pointer), document.text));
  const declaration = includeDeclaration ? definitionOf(checked, named) : undefined;
  return declaration ? [declaration, ...mentions] : mentions;
}

/** The rename as one workspace edit: each file's new text, then the moves of files named by the key. */
export async function renameEdit(checked: WorkspaceCheck, named: NamedObject, to: string, buffers: ReadonlyMap<string, string>): Promise<WorkspaceEdit> {
  const object = checked.latest && declarationOf(checked.latest.workspace, named);
  const pkg = object && checked.latest!.workspace.packages.find((candidate) => candidate.key === object.package);
  if (!pkg) throw new ResponseError(ErrorCodes.InvalidParams, `no ${named.kind} '${named.key}' in the workspace`);
  const changes = await renameObject(pkg.dir, named.kind, named.key, to, true);
  // The rename rewrites files as they are on disk: an unsaved buffer among them would lose its edits.
  const unsaved = changes.edits.filter(({ path, edit }) => buffers.has(path) && buffers.get(path) !== edit.text);
  if (unsaved.length > 0) throw new ResponseError(ErrorCodes.InvalidRequest, `save ${unsaved.map(({ path }) => relative(checked.root, path)).join(', ')} before renaming: the rename rewrites the files as they are on disk`);
  const texts = changes.edits.filter(({ edit }) => edit.toString() !== edit.text).map(({ path, edit }) => ({
    textDocument: { uri: uriOf(path), version: null },
    edits: [{ range: wholeText(edit.text), newText: edit.toString() }],
  }));
  const moves = changes.edits.flatMap(({ path, to: moved }) => (moved ? [{ kind: 'rename' as const, oldUri: uriOf(path), newUri: uriOf(moved) }] : []));
  const files = changes.files.flatMap((file) => (file.from ? [{ kind: 'rename' as const, oldUri: uriOf(file.from), newUri: uriOf(file.path) }] : []));
  return { documentChanges: [...texts, ...moves, ...files] };
}

function documentAt(checked: WorkspaceCheck, workspace: Workspace, path: string): SourceDocument | undefined {
  return workspace.documents().get(relative(checked.root, path));
}

function wholeText(text: string): Range {
  return { start: { line: 0, character: 0 }, end: positionOf(text, text.length) };
}

export function positionOf(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}
