/**
 * The JSON Schema a component param names by `$ref: <file>#<pointer>`: the file is relative to the component's
 * file and must stay in the package. Each file is read once per check.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { isInside } from '../../fs/read.js';
import type { SourceDocument } from '../../json/document.js';
import { valueAt } from '../../json/pointer.js';
import { parseSource } from '../../load/source.js';
import type { Package, PackageObject } from '../../model/package.js';
import { isRecord } from '../../json/guards.js';

export type SchemaRefFailure =
  | { reason: 'outside' }
  | { reason: 'no-file' }
  | { reason: 'not-loading'; detail: string }
  | { reason: 'not-a-pointer'; fragment: string }
  | { reason: 'nothing-at'; file: string; pointer: string }
  | { reason: 'not-an-object'; file: string; pointer: string };

/** The JSON Schema a component param `$ref` names, or why it names none; `files` caches loads by absolute path. */
export function resolveSchemaRef(
  pkg: Package,
  component: PackageObject,
  ref: string,
  files: Map<string, SourceDocument | SchemaRefFailure>,
): { schema: Record<string, unknown> } | SchemaRefFailure {
  const hash = ref.indexOf('#');
  const file = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const target = resolve(pkg.dir, relative(dirname(pkg.manifest.file), dirname(component.file)), file);
  if (file === '' || !isInside(pkg.dir, target)) return { reason: 'outside' };
  let document = files.get(target);
  if (document === undefined) {
    document = loadSchemaFile(pkg.dir, target);
    files.set(target, document);
  }
  if ('reason' in document) return document;
  let pointer: string;
  try {
    pointer = decodeURIComponent(fragment);
  } catch {
    return { reason: 'not-a-pointer', fragment };
  }
  if (pointer !== '' && !pointer.startsWith('/')) return { reason: 'not-a-pointer', fragment };
  const found = valueAt(document.value, pointer);
  if (found === undefined) return { reason: 'nothing-at', file, pointer };
  return isRecord(found) ? { schema: found } : { reason: 'not-an-object', file, pointer };
}

function loadSchemaFile(root: string, target: string): SourceDocument | SchemaRefFailure {
  let bytes: Buffer;
  try {
    if (!isInside(realpathSync(root), realpathSync(target))) return { reason: 'outside' };
    bytes = readFileSync(target);
  } catch {
    return { reason: 'no-file' };
  }
  const loaded = parseSource(bytes, target);
  return loaded.document ?? { reason: 'not-loading', detail: loaded.findings[0]?.message ?? 'unreadable' };
}

