/**
 * Reading a file into a document: UTF-8 text, then the YAML or JSON loader by extension. The core's limits
 * on source (compat-core-validators §0.1) are applied before parsing, so an oversized file costs no parse.
 *
 * | code         | severity | when                                                                             |
 * |--------------|----------|----------------------------------------------------------------------------------|
 * | invalid_yaml | error    | a `.yaml` file that is not UTF-8 text, holds a NUL, is over 4 000 000 characters |
 * |              |          | or nested over 100 levels                                                        |
 * | invalid_json | error    | the same of a `.json` file                                                       |
 * | read_failed  | error    | the file cannot be read (missing, a directory, …)                                |
 * | file_refused | error    | not a regular file (a named pipe would block the reader, a device never ends)    |
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Finding } from '../model/finding.js';
import { notRegularReason } from '../fs/read.js';
import type { LoadResult } from './load-finding.js';
import { parseJson } from './json.js';
import { lineStartsOf, loadError, positionAt } from './load-finding.js';
import { overlaidBytes } from './overlay.js';
import { activeParseCache } from './parse-cache.js';
import { parseYaml } from './yaml.js';
import { holdYoungGeneration } from './young-generation.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT_UTF8 = new TextDecoder('utf-8');

/**
 * Loads the file at `path`; findings name it `file` (the path as the user should see it).
 * JSON when the name ends in `.json`, YAML otherwise.
 */
export async function loadSourceFile(path: string, file: string): Promise<LoadResult> {
  return sourceFileNow(path, file);
}

/**
 * `loadSourceFile`, given at once when no read is needed (an editor's buffer, a file the index holds): a package of
 * 10,000 unchanged files then makes no promise a file.
 */
export function sourceFileNow(path: string, file: string): LoadResult | Promise<LoadResult> {
  return knownSourceFile(path, file) ?? readSourceFile(path, file);
}

/** `loads` as they are, each promise among them replaced by what it gives (they run together, as `Promise.all` runs them). */
export async function settled<T extends object>(loads: readonly (T | Promise<T>)[]): Promise<T[]> {
  const pending = loads.filter((load): load is Promise<T> => load instanceof Promise);
  if (pending.length === 0) return loads as T[];
  const results = await Promise.all(pending);
  let next = 0;
  return loads.map((load) => (load instanceof Promise ? results[next++]! : load));
}

/** The document of an editor's unsaved buffer for `path`, or of a file the index holds unchanged; undefined for one to read. */
function knownSourceFile(path: string, file: string): LoadResult | undefined {
  // An editor's unsaved buffer stands for the file: parsed as it is, never taken from the index nor kept in it.
  const overlaid = overlaidBytes(path);
  if (overlaid !== undefined) return parseSource(overlaid, file);
  return activeParseCache()?.lookup(path, file); // unchanged since the last check: not even opened
}

async function readSourceFile(path: string, file: string): Promise<LoadResult> {
  const cache = activeParseCache();
  const bytes = readSource(path, file);
  if (!(bytes instanceof Uint8Array)) return { findings: [bytes] };
  await nextParseTurn();
  return cache ? cache.load(bytes, file, () => parseSource(bytes, file), path) : parseSource(bytes, file);
}

/** Opening a named pipe must not wait for a writer: the file is refused once its type is known. */
const OPEN_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The bytes of the regular file at `path`, or the finding of why they are not read. Synchronous, in one
 * open, stat, read and close: a package of thousands of small files spent more on queueing each step of an
 * asynchronous read on the thread pool than on reading, and a read of a local file is as short as a parse.
 */
function readSource(path: string, file: string): Uint8Array | Finding {
  let fd: number | undefined;
  try {
    fd = openSync(path, OPEN_WITHOUT_WAITING);
    const info = fstatSync(fd);
    if (!info.isFile()) return notRegular(file, info);
    // UTF-8 takes at most 4 bytes a character: a larger file is over the limit without reading it.
    if (info.size > SOURCE_CHARACTER_LIMIT * 4) return tooLarge(file, `${info.size} bytes`);
    return readFileSync(fd);
  } catch (error) {
    return loadError('read_failed', file, { line: 1, column: 1 }, '', `cannot read the file: ${reason(error)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The turn of the last file queued to be parsed. */
let parseTurn: Promise<void> = Promise.resolve();

/**
 * Files read together would be parsed back to back as their reads complete; one parse per turn of the event
 * loop instead lets the local core answer other requests (a health check) between two files of a large package.
 */
function nextParseTurn(): Promise<void> {
  holdYoungGeneration();
  parseTurn = parseTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return parseTurn;
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
  return parseSourceText(text, file);
}

/** Parses the text of `file` (YAML, or JSON by its name) within the core's limits on source. */
export function parseSourceText(text: string, file: string): LoadResult {
  const code = file.endsWith('.json') ? 'invalid_json' : 'invalid_yaml';
  if (text.length > SOURCE_CHARACTER_LIMIT) return { findings: [tooLarge(file, `${text.length} characters`, code)] };
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    return { findings: [loadError(code, file, positionAt(lineStartsOf(text), nul), '', 'the file holds a NUL character (U+0000): it is not text')] };
  }
  const result = code === 'invalid_json' ? parseJson(text, file) : parseYaml(text, file);
  const depth = result.document === undefined ? 0 : nestingDepth(result.document.value);
  if (depth > NESTING_LIMIT) {
    return { findings: [loadError(code, file, { line: 1, column: 1 }, '', `the document is nested ${depth} levels deep, over the core's limit of ${NESTING_LIMIT}`)] };
  }
  return result;
}

/** The core's limit on the source text of a package (compat-core-validators §0.1), checked here file by file. */
export const SOURCE_CHARACTER_LIMIT = 4_000_000;
/** The core's limit on the nesting of one document's mappings and sequences. */
export const NESTING_LIMIT = 100;

function tooLarge(file: string, size: string, code = file.endsWith('.json') ? 'invalid_json' : 'invalid_yaml') {
  return loadError(code, file, { line: 1, column: 1 }, '', `the file has ${size}, over the core's limit of ${SOURCE_CHARACTER_LIMIT} characters of source per package`,
    'split the data over several packages, or keep large data out of package files');
}

function notRegular(file: string, info: Stats) {
  if (info.isDirectory()) return loadError('read_failed', file, { line: 1, column: 1 }, '', 'cannot read the file: it is a directory');
  return loadError('file_refused', file, { line: 1, column: 1 }, '', notRegularReason(info)!);
}

/** Levels of nested mappings and sequences; a scalar is 0. */
function nestingDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, nestingDepth(item));
  return deepest + 1;
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
