import { cachedCheckout, extractCheckout } from './checkout.js';
import { sourceDir, withSourceLock, type SourceLockOptions } from './cache.js';
import { SourceError } from './errors.js';
import { GitError, Mirror } from './mirror.js';
import { redactCredentials as shown, transportOf, type GitSource } from './source.js';

/**
 * The two ways a git source becomes a package directory: `pinSource` (what `lock` does: fetch, resolve the
 * tag, extract afresh) and `materialiseSource` (what loading against a lock does: the locked commit and
 * content, from the cache when it is intact, fetching only when needed).
 */

export interface PinnedSource {
  commit: string;
  dir: string;
  contentHash: string;
}

export interface SourceOptions extends SourceLockOptions {
  cacheDir: string;
  /** Called before network work, for progress on a terminal. */
  onFetch?: (source: GitSource) => void;
}

/** A problem that does not stop the source from being used (told to the user, not fatal). */
export interface SourceWarning {
  code: string;
  message: string;
  hint?: string;
}

export async function pinSource(source: GitSource, options: SourceOptions): Promise<PinnedSource> {
  const dir = sourceDir(options.cacheDir, source.git);
  return withSourceLock(dir, async () => {
    const mirror = await openMirror(dir, source);
    options.onFetch?.(source);
    await fetchOrFail(mirror, source);
    const commit = await mirror.resolveTag(source.ref);
    if (commit === undefined) throw noSuchTag(source);
    const checkout = await extractCheckout(dir, mirror, commit, source.path, where(source, commit));
    return { commit, ...checkout };
  }, options);
}

export interface LockedSource {
  commit: string;
  contentHash: string;
}

export interface MaterialiseOptions extends SourceOptions {
  /**
   * Plan and apply: always fetch, and a tag that moved since locking is a refusal. Otherwise (check,
   * test) the network is used only when the commit is not in the cache, and a moved tag is a warning.
   */
  strict?: boolean;
}

export async function materialiseSource(
  source: GitSource, locked: LockedSource, options: MaterialiseOptions,
): Promise<{ dir: string; warnings: SourceWarning[] }> {
  const dir = sourceDir(options.cacheDir, source.git);
  return withSourceLock(dir, async () => {
    const warnings: SourceWarning[] = [];
    if (!options.strict) {
      const cached = await cachedCheckout(dir, locked.commit, source.path, locked.contentHash);
      if (cached) return { dir: cached, warnings };
    }
    const mirror = await openMirror(dir, source);
    if (options.strict || !(await mirror.hasCommit(locked.commit))) {
      const fetched = await fetchOrFallBack(mirror, source, locked.commit, options);
      if (fetched.warning) warnings.push(fetched.warning);
      else {
        const moved = await tagMoved(mirror, source, locked.commit);
        if (moved && options.strict) throw new SourceError(moved.code, moved.message, moved.hint);
        if (moved) warnings.push({ ...moved, message: `${moved.message} — the locked content is used` });
      }
    }
    if (!(await mirror.hasCommit(locked.commit))) {
      throw new SourceError('commit_missing', `package '${source.key}': commit ${short(locked.commit)} from ` +
        `the lock is not in ${shown(source.git)}`, 'the commit was removed from the repository — lock again: package-sdk lock');
    }
    const cached = await cachedCheckout(dir, locked.commit, source.path, locked.contentHash);
    if (cached) return { dir: cached, warnings };
    const checkout = await extractCheckout(dir, mirror, locked.commit, source.path, where(source, locked.commit));
    if (checkout.contentHash !== locked.contentHash) {
      throw new SourceError('content_mismatch', `package '${source.key}': content of ${shown(source.git)} at ` +
        `${short(locked.commit)} (${checkout.contentHash.slice(0, 19)}…) does not match the lock ` +
        `(${locked.contentHash.slice(0, 19)}…)`, 'check the source, and lock again (package-sdk lock) if the content is accepted');
    }
    return { dir: checkout.dir, warnings };
  }, options);
}

async function openMirror(dir: string, source: GitSource): Promise<Mirror> {
  const transport = transportOf(source.git);
  if (transport === undefined) throw new SourceError('git_url_invalid', `git source '${shown(source.git)}' is not a valid URL`);
  try {
    return await Mirror.open(dir, source.git, transport);
  } catch (error) {
    throw asSourceError(error, source);
  }
}

async function fetchOrFail(mirror: Mirror, source: GitSource): Promise<void> {
  try {
    await mirror.fetchTags();
  } catch (error) {
    throw asSourceError(error, source);
  }
}

async function fetchOrFallBack(
  mirror: Mirror, source: GitSource, commit: string, options: SourceOptions,
): Promise<{ warning?: SourceWarning }> {
  options.onFetch?.(source);
  try {
    await mirror.fetchTags();
    return {};
  } catch (error) {
    if (!(error instanceof GitError) || error.message === 'git sources need git in PATH') throw asSourceError(error, source);
    if (await mirror.hasCommit(commit)) {
      return { warning: { code: 'source_unavailable', message: `source ${shown(source.git)} of package '${source.key}' is ` +
        `unavailable — content ${short(commit)} from the cache` } };
    }
    throw new SourceError('source_unavailable', `package '${source.key}': source ${shown(source.git)} is unavailable and ` +
      `commit ${short(commit)} from the lock is not in the cache — ${error.message}`);
  }
}

async function tagMoved(mirror: Mirror, source: GitSource, locked: string): Promise<SourceWarning | undefined> {
  const now = await mirror.resolveTag(source.ref);
  if (now === locked) return undefined;
  const where = now === undefined ? 'no longer exists' : `points to ${short(now)}`;
  return {
    code: 'tag_moved',
    message: `package '${source.key}': tag ${source.ref} in ${shown(source.git)} ${where}, but the lock has ` +
      `${short(locked)}: content under the same tag was replaced`,
    hint: 'check the source, and lock again (package-sdk lock) if the new content is accepted',
  };
}

function noSuchTag(source: GitSource): SourceError {
  const looksLikeCommit = /^[0-9a-f]{7,40}$/.test(source.ref);
  return new SourceError('tag_not_found', `${shown(source.git)}: no tag '${source.ref}' — the ref of a git source is a ` +
    'tag only (refs/tags/<ref>), branches and commits are not accepted',
  looksLikeCommit
    ? `'${source.ref}' looks like a commit id: tag that commit (git tag v1.0.0 ${source.ref}), push the tag and name it in ref`
    : `if '${source.ref}' is a branch, tag the commit to install (git tag v1.0.0 && git push origin v1.0.0) and name the tag in ref`);
}

function asSourceError(error: unknown, source: GitSource): SourceError {
  if (error instanceof SourceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (message === 'git sources need git in PATH') return new SourceError('git_missing', message);
  return new SourceError('source_unavailable', `package '${source.key}': ${shown(source.git)}: ${message}`);
}

function where(source: GitSource, commit: string): string {
  return `package '${source.key}' in ${shown(source.git)} at ${short(commit)}${source.path ? ` in ${source.path}` : ''}`;
}

function short(commit: string): string {
  return commit.slice(0, 12);
}
