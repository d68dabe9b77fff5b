import type { Finding, Severity } from '../model/finding.js';
import type { SourcePlace } from '../model/installation.js';
import { SourceError } from '../sources/errors.js';
import { materialiseSource, pinSource, type PinnedSource, type SourceOptions } from '../sources/git-source.js';
import { isGitLockSource, orderedSource, type LockEntry, type LockSource } from '../sources/lock-file.js';
import { redactCredentials, sourceProblems, type GitSource } from '../sources/source.js';
import { cacheRoot } from '../sources/cache.js';

/**
 * The seam between loading an installation and git: the loader hands each git source (and the lock's entry
 * for its key) to a resolver and gets a package directory, or findings placed where the source is written.
 *
 * | code               | severity      | when                                                                  |
 * |--------------------|---------------|-----------------------------------------------------------------------|
 * | lock_required      | error         | a git source has no entry (or no commit) in packages.lock             |
 * | lock_stale         | error         | the lock's source of the key differs from the installation's          |
 * | tag_moved          | warning/error | the tag now points elsewhere (warning: the lock wins; error in strict) |
 * | content_mismatch   | error         | the content at the locked commit does not hash to the lock's value    |
 * | source_unavailable | warning/error | the remote cannot be fetched (warning when the cache has the commit)  |
 * | commit_missing     | error         | the locked commit is not in the repository                            |
 * | tag_not_found      | error         | no tag of that name (branches and commit ids are not refs)            |
 * | git_tree_refused   | error         | a symlink, submodule, odd mode, case collision or non-UTF-8 name      |
 * | package_manifest_missing | error   | the package subtree has no package.yaml                               |
 * | git_url_invalid, git_ref_invalid, git_path_invalid | error | the source entry itself is malformed    |
 * | git_missing        | error         | git is not in PATH                                                    |
 * | cache_race         | error         | a cached checkout vanished while being read                           |
 */

export type GitSourceResolution = { dir: string; findings: Finding[] } | { findings: Finding[] };

export type GitSourceResolver = (
  source: GitSource, lockEntry: LockEntry | undefined, place?: SourcePlace,
) => Promise<GitSourceResolution>;

export interface ResolverOptions extends Omit<SourceOptions, 'cacheDir'> {
  /** `$PACKAGE_SDK_CACHE` (or its fallbacks) by default. */
  cacheDir?: string;
  /** Plan and apply: always fetch, and a moved tag is a refusal. */
  strict?: boolean;
  /** The installation file, named in the fix of `lock_required`. */
  installFile?: string;
}

/** The resolver that loads git sources against the lock (check, test, plan, apply). */
export function gitSourceResolver(options: ResolverOptions = {}): GitSourceResolver {
  return async (source, lockEntry, place) => {
    const invalid = invalidSourceFindings(source, place);
    if (invalid.length > 0) return { findings: invalid };
    const pinned = lockedOf(source, lockEntry, options.installFile);
    if ('code' in pinned) return { findings: [finding(place, pinned.code, 'error', pinned.message, pinned.hint)] };
    try {
      const cacheDir = options.cacheDir ?? cacheRoot();
      const { dir, warnings } = await materialiseSource(source, pinned, { ...options, cacheDir });
      return { dir, findings: warnings.map((w) => finding(place, w.code, 'warning', w.message, w.hint)) };
    } catch (error) {
      return { findings: [sourceErrorFinding(error, place)] };
    }
  };
}

/** Sources fetched at once by `lock`: the network waits, not the CPU. */
const PARALLEL_FETCHES = 6;

export interface PinningResolver {
  resolve: GitSourceResolver;
  /** What each source key was pinned to, once resolved. */
  pinned: Map<string, PinnedCommit>;
  /** Starts pinning these sources, several at a time; `resolve` then waits for their results. */
  prefetch(sources: readonly GitSource[]): void;
}

/** The resolver of `lock` itself: the tag as it is now, extracted afresh; remembers what it pinned. */
export function pinningResolver(options: SourceOptions): PinningResolver {
  const pinned = new Map<string, PinnedCommit>();
  const started = new Map<string, Promise<PinnedSource>>();
  const pin = (source: GitSource): Promise<PinnedSource> => {
    const id = JSON.stringify([source.key, source.git, source.ref, source.path]);
    let promise = started.get(id);
    if (!promise) {
      promise = pinSource(source, options);
      promise.catch(() => undefined); // reported when resolved, not as an unhandled rejection
      started.set(id, promise);
    }
    return promise;
  };
  const resolve: GitSourceResolver = async (source, _lockEntry, place) => {
    const invalid = invalidSourceFindings(source, place);
    if (invalid.length > 0) return { findings: invalid };
    try {
      const result = await pin(source);
      pinned.set(source.key, { commit: result.commit, contentHash: result.contentHash });
      return { dir: result.dir, findings: [] };
    } catch (error) {
      return { findings: [sourceErrorFinding(error, place)] };
    }
  };
  const prefetch = (sources: readonly GitSource[]): void => {
    const queue = sources.filter((source) => sourceProblems(source).length === 0);
    const next = (): void => {
      const source = queue.shift();
      if (source) void pin(source).catch(() => undefined).finally(next);
    };
    for (let i = 0; i < PARALLEL_FETCHES; i++) next();
  };
  return { resolve, pinned, prefetch };
}

export interface PinnedCommit {
  commit: string;
  /** Hash of the checkout when it was extracted, to notice it changing while `lock` runs. */
  contentHash: string;
}

function lockedOf(
  source: GitSource, entry: LockEntry | undefined, installFile: string | undefined,
): { commit: string; contentHash: string } | { code: string; message: string; hint?: string } {
  const fix = `package-sdk lock --install ${installFile ?? '<installation file>'}`;
  if (entry === undefined || entry.commit === undefined) {
    return { code: 'lock_required', message: `package '${source.key}' from git (${redactCredentials(source.git)} ${source.ref}) is not locked`,
      hint: `pin the sources: ${fix}` };
  }
  const wanted = orderedSource(source);
  if (!sameSource(entry.source, wanted)) {
    return { code: 'lock_stale', message: `package '${source.key}': source in the lock ${JSON.stringify(orderedSource(entry.source))}, ` +
      `in the installation ${JSON.stringify(wanted)}`, hint: `lock again: ${fix}` };
  }
  if (!/^[0-9a-f]{40}$/.test(entry.commit)) {
    return { code: 'lock_invalid', message: `commit of package '${source.key}' in the lock is not a SHA-1: '${entry.commit}'` };
  }
  return { commit: entry.commit, contentHash: entry.contentHash };
}

export function sameSource(a: LockSource, b: LockSource): boolean {
  return JSON.stringify(orderedSource(a)) === JSON.stringify(orderedSource(b));
}

export function gitSourceOf(key: string, source: LockSource): GitSource | undefined {
  return isGitLockSource(source) ? { key, ...source } : undefined;
}

function invalidSourceFindings(source: GitSource, place: SourcePlace | undefined): Finding[] {
  return sourceProblems(source).map((problem) =>
    finding(place, problem.code, 'error', problem.message, problem.hint, problem.field));
}

function sourceErrorFinding(error: unknown, place: SourcePlace | undefined): Finding {
  if (error instanceof SourceError) return finding(place, error.code, 'error', error.message, error.hint);
  throw error; // an internal bug, not a problem of the source
}

export function finding(
  place: SourcePlace | undefined, code: string, severity: Severity, message: string, hint?: string,
  field?: 'git' | 'ref' | 'path',
): Finding {
  const span = (field && place?.fields?.[field]) ?? place ?? { line: 1, column: 1 };
  return {
    code, severity, message,
    file: place?.file ?? '',
    path: place ? (field && place.fields?.[field] ? `${place.path}/${field}` : place.path) : '',
    line: span.line, column: span.column,
    ...(span.endLine !== undefined ? { endLine: span.endLine, endColumn: span.endColumn } : {}),
    ...(hint ? { hint } : {}),
  };
}
