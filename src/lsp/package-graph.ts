/**
 * The package graph as an editor asks about it: which object a string names, where an object is declared,
 * and every place that names it — read from the documents of the latest check.
 */
import { objectNamedBy, walkStrings } from '../author/edit/rename.js';
import type { SourceDocument } from '../json/document.js';
import { childPointer } from '../json/pointer.js';
import type { ObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import type { YamlPath } from './yaml-place.js';

export interface NamedObject {
  kind: ObjectKind;
  key: string;
}

/** A place that names an object: the document and the JSON Pointer of the string. */
export interface Mention {
  document: SourceDocument;
  pointer: string;
}

const ENVELOPE = new Set(['apiVersion', 'kind', 'key']);

/** The object the string at `path` names, judged by where it stands (the field it is the value of). */
export function objectNamedAt(path: YamlPath, value: string): NamedObject | undefined {
  if (path.length === 1 && ENVELOPE.has(String(path[0]))) return undefined;
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  const key = keys[keys.length - 1];
  const enclosing = keys[keys.length - 2];
  return objectNamedBy(value, { ...(key !== undefined ? { key } : {}), ...(enclosing !== undefined ? { enclosing } : {}) });
}

/** Every object of the workspace, in package order. */
export function objectsOf(workspace: Workspace): PackageObject[] {
  return workspace.packages.flatMap((pkg) => pkg.objects);
}

export function declarationOf(workspace: Workspace, named: NamedObject): PackageObject | undefined {
  return objectsOf(workspace).find((object) => object.kind === named.kind && object.key === named.key);
}

/** The object a document declares, when it is an object file. */
export function objectOfDocument(workspace: Workspace, document: SourceDocument | undefined): PackageObject | undefined {
  return document === undefined ? undefined : objectsOf(workspace).find((object) => object.document === document);
}

/** Every string of the packages' manifests, objects and tests that names `named`. */
export function mentionsOf(workspace: Workspace, named: NamedObject): Mention[] {
  const mentions: Mention[] = [];
  for (const document of documentsOf(workspace)) {
    walkStrings(document.value, [], (value, path) => {
      const found = objectNamedAt([...path], value);
      if (found?.kind === named.kind && found.key === named.key) mentions.push({ document, pointer: pointerOf(path) });
    });
  }
  return mentions;
}

function documentsOf(workspace: Workspace): SourceDocument[] {
  return workspace.packages.flatMap((pkg) => [pkg.manifest, ...pkg.objects.map((object) => object.document), ...pkg.tests.map((test) => test.document)]);
}

export function pointerOf(path: readonly (string | number)[]): string {
  return path.reduce<string>((pointer, segment) => childPointer(pointer, segment), '');
}
