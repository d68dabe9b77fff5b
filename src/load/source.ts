/**
 * Reading a file into a document: UTF-8 text, then the YAML or JSON loader by extension.
 *
 * | code         | severity | when                                              |
 * |--------------|----------|---------------------------------------------------|
 * | invalid_yaml | error    | a `.yaml` file that is not UTF-8                  |
 * | invalid_json | error    | a `.json` file that is not UTF-8                  |
 * | read_failed  | error    | the file cannot be read (missing, a directory, …) |
 */
import { readFile, stat } from 'node:fs/promises';
import type { LoadResult } from './load-finding.js';
import { parseJson } from './json.js';
import { lineStartsOf, loadError, positionAt } from './load-finding.js';
import { overlaidBytes } from './overlay.js';
import { activeParseCache } from './parse-cache.js';
import { parseYaml } from './yaml.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT_UTF8 = new TextDecoder('utf-8');

/**
 * Loads the file at `path`; findings name it `file` (the path as the user should see it).
 * JSON when the name ends in `.json`, YAML otherwise.
 */
export async function loadSourceFile(path: string, file: string): Promise<LoadResult> {
  let bytes: Uint8Array;
  try {
    bytes = overlaidBytes(path) ?? (await readFile(path));
  } catch (error) {
    return { findings: [loadError('read_failed', file, { line: 1, column: 1 }, '', `cannot read the file: ${reason(error)}`)] };
  }
  const cache = activeParseCache();
  return cache ? cache.load(bytes, file, () => parseSource(bytes, file)) : parseSource(bytes, file);
}

/** Decodes and parses `bytes` as the file `file`. */
export function parseSource(bytes: Uint8Array, file: string): LoadResult {
  const json = file.endsWith('.json');
  const code = json ? 'invalid_json' : 'invalid_yaml';
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    const lenient = LENIENT_UTF8.decode(bytes);
    const at = positionAt(lineStartsOf(lenient), Math.max(0, lenient.indexOf('\uFFFD')));
    return { findings: [loadError(code, file, at, '', 'the file is not UTF-8 text')] };
  }
  return json ? parseJson(text, file) : parseYaml(text, file);
}

/** The system's reason for an I/O error, without the stack. */
export function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EISDIR') return 'it is a directory';
  if (e.code === 'EACCES') return 'permission denied';
  return e.message ?? String(error);
}

/** Whether `path` is a regular file (after links); false when it does not exist. */
export async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
