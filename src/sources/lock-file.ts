import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { replaceFile } from '../fs/write.js';
import { byCodePoint } from '../json/canonical.js';
import { digest } from '../json/digest.js';
import { isLocalUrl } from './source.js';
import { reduceSchemaErrors } from '../schema/errors.js';
import { validatorFor } from '../schema/validators.js';

/**
 * `packages.lock` (`package-sdk.lock/v1`, compat §2.2): written only by `package-sdk lock`, next to the
 * installation file, in the reference's exact bytes — fixed key order, entries in dependency order, JSON
 * with two-space indentation, raw UTF-8 and a trailing newline — validated, then renamed into place.
 */

export const LOCK_FORMAT = 'package-sdk.lock/v1';
export const LOCK_FILE_NAME = 'packages.lock';

export type LockSource = { path: string } | { git: string; ref: string; path?: string };

export interface LockEntry {
  key: string;
  version: string;
  source: LockSource;
  /** Only for git sources. */
  commit?: string;
  contentHash: string;
}

export interface LockDocument {
  format: typeof LOCK_FORMAT;
  installation?: string;
  packages: LockEntry[];
}

export class LockFileError extends Error {
  constructor(readonly code: 'lock_invalid' | 'lock_not_written', message: string) {
    super(message);
  }
}

export function lockFileFor(installFile: string): string {
  return join(dirname(installFile), LOCK_FILE_NAME);
}

export function isGitLockSource(source: LockSource): source is { git: string; ref: string; path?: string } {
  return 'git' in source;
}

/** The document with its keys in the order the reference writes them. */
export function lockDocument(installation: string | undefined, entries: readonly LockEntry[]): LockDocument {
  return {
    format: LOCK_FORMAT,
    ...(installation ? { installation } : {}),
    packages: entries.map(orderedEntry),
  };
}

function orderedEntry(entry: LockEntry): LockEntry {
  return {
    key: entry.key,
    version: entry.version,
    source: orderedSource(entry.source),
    ...(entry.commit !== undefined ? { commit: entry.commit } : {}),
    contentHash: entry.contentHash,
  };
}

export function orderedSource(source: LockSource): LockSource {
  if (!isGitLockSource(source)) return { path: source.path };
  return { git: source.git, ref: source.ref, ...(source.path ? { path: source.path } : {}) };
}

/** Python's `json.dumps(indent=2, ensure_ascii=False)` + `\n`; the lock holds strings only, so these agree. */
export function serializeLock(document: LockDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * `lockHash` (compat §2.7): the digest of the entries of all packages, as `lock` would write them, sorted
 * by key. Plans carry it, so that `apply` notices any package that changed after the plan was built.
 */
export function lockHash(entries: readonly LockEntry[]): string {
  return digest([...entries].map(orderedEntry).sort((a, b) => byCodePoint(a.key, b.key)));
}

/** The first problem of a lock document against `schema/v1/lock.schema.json`, or undefined when valid. */
export async function lockSchemaProblem(document: unknown): Promise<string | undefined> {
  const validate = await validatorFor('lock');
  if (validate(withPublishedUrls(document))) return undefined;
  const [first] = reduceSchemaErrors(validate.errors ?? []);
  return first ? `${first.pointer || '(root)'}: ${first.message}` : 'does not match the schema';
}

/**
 * Local sources (loopback http, `file://`) are ours, for local use and tests; the published schema only
 * knows remote URLs. They are checked by `transportOf`, and the schema checks everything else.
 */
function withPublishedUrls(document: unknown): unknown {
  const packages = (document as { packages?: unknown })?.packages;
  if (!Array.isArray(packages)) return document;
  return {
    ...(document as object),
    packages: packages.map((entry: { source?: { git?: unknown } }) =>
      typeof entry?.source?.git === 'string' && isLocalUrl(entry.source.git)
        ? { ...entry, source: { ...entry.source, git: 'https://localhost/local-source' } }
        : entry),
  };
}

/** Reads and validates a lock; undefined when there is none. */
export async function readLock(path: string): Promise<LockDocument | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LockFileError('lock_invalid', `${path}: cannot be read: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new LockFileError('lock_invalid', `${path}: not JSON: ${(error as Error).message}`);
  }
  const problem = await lockSchemaProblem(document);
  if (problem) throw new LockFileError('lock_invalid', `${path}: not ${LOCK_FORMAT}: ${problem}`);
  return document as LockDocument;
}

/** Validates, then writes through a temporary file in the same directory and a rename: never half a lock. */
export async function writeLock(path: string, document: LockDocument): Promise<void> {
  const problem = await lockSchemaProblem(document);
  if (problem) throw new LockFileError('lock_not_written', `lock not written: not ${LOCK_FORMAT}: ${problem}`);
  await replaceFile(path, serializeLock(document), { makeDirs: false });
}
