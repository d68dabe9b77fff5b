import { nodeCrypto } from '../fs/node-crypto.js';
import { hostname } from 'node:os';
import { access, lstat, mkdir, open, readFile, readdir, realpath, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { sha256Hex } from '../json/digest.js';

/**
 * The git cache (compat §2.4): `<root>/git/<sha256(url)>/` per source URL, holding the bare mirror
 * `repo.git`, immutable checkouts `checkouts/<commit>/<sha256(subdir)[:16]>/<contentHash hex>` and, while a
 * run works, temporaries `.staging-*` / `.spoiled-*` / `.pruned-*`. One process at a time works in a
 * source directory (`withSourceLock`); whoever enters first sweeps what a crashed run left.
 */

/** Temporaries older than this were left by a run that died; a live run renames its own well before. */
export const STALE_AFTER_MS = 3600 * 1000;
const TEMPORARY = /^\.(staging|spoiled|pruned)-/;

export { cacheRoot } from '../fs/cache-root.js';


/** The URL exactly as written: two spellings of one repository are two mirrors. */
export function sourceDir(root: string, url: string): string {
  return join(root, 'git', sha256Hex(url));
}

export function mirrorDir(source: string): string {
  return join(source, 'repo.git');
}

export function checkoutsDir(source: string): string {
  return join(source, 'checkouts');
}

export function treeSegment(subdir: string | undefined): string {
  return sha256Hex(subdir ?? '').slice(0, 16);
}

/** Parent of the checkouts of one package subtree at one commit; named by content hash below it. */
export function checkoutParent(source: string, commit: string, subdir: string | undefined): string {
  return join(checkoutsDir(source), commit, treeSegment(subdir));
}

export function checkoutDir(source: string, commit: string, subdir: string | undefined, hash: string): string {
  return join(checkoutParent(source, commit, subdir), hash.replace(/^sha256:/, ''));
}

export function temporaryName(kind: 'staging' | 'spoiled' | 'pruned'): string {
  return `.${kind}-${nodeCrypto().randomUUID()}`;
}

export class CacheBusyError extends Error {}

export interface SourceLockOptions {
  /** Give up after this long (another run may be fetching a large repository). */
  timeoutMs?: number;
  /** Called once when the lock is held by another process and this one starts waiting. */
  onWait?: (owner: string) => void;
}

/**
 * Runs `work` holding the source directory's lock, after sweeping stale temporaries.
 *
 * The lock is a file created exclusively (`O_EXCL`) holding `pid@host`. A lock whose owner is a dead
 * process on this host is broken, under a second short-lived lock so that two waiters never both break
 * it (one of them would delete the lock the other just took).
 */
export async function withSourceLock<T>(source: string, work: () => Promise<T>, options: SourceLockOptions = {}): Promise<T> {
  await mkdir(source, { recursive: true });
  const release = await acquire(join(source, '.lock.pid'), options);
  try {
    await sweepTemporaries(source);
    return await work();
  } finally {
    await release();
  }
}

async function acquire(lockFile: string, options: SourceLockOptions): Promise<() => Promise<void>> {
  const me = `${process.pid}@${hostname()}`;
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60 * 1000);
  let waited = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(me);
      await handle.close();
      return () => unlink(lockFile).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readFile(lockFile, 'utf8').catch(() => '');
    if (owner !== '' && isDeadOwner(owner)) {
      await breakLock(lockFile, owner);
      continue;
    }
    if (Date.now() > deadline) {
      throw new CacheBusyError(`the cache directory ${lockFile.slice(0, -'.lock.pid'.length - 1)} is locked by ` +
        `${owner || 'another process'} — wait for it to finish, or remove ${lockFile} if that process is gone`);
    }
    if (!waited && owner !== '') options.onWait?.(owner);
    waited = true;
    await sleep(Math.min(25 * 2 ** Math.min(attempt, 4), 400));
  }
}

function isDeadOwner(owner: string): boolean {
  const [pid, host] = owner.split('@');
  if (host !== hostname() || !/^\d+$/.test(pid)) return false; // another machine's process: cannot tell
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function breakLock(lockFile: string, deadOwner: string): Promise<void> {
  const breaker = `${lockFile}.break`;
  try {
    await mkdir(breaker);
  } catch {
    // Someone else is breaking it; a breaker that died mid-way leaves its directory, so age it out.
    const age = await stat(breaker).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > 30_000) await rmdir(breaker).catch(() => undefined);
    await sleep(25);
    return;
  }
  try {
    const owner = await readFile(lockFile, 'utf8').catch(() => '');
    if (owner === deadOwner) await unlink(lockFile).catch(() => undefined);
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Removes temporaries older than an hour at the source root and beside ready checkouts. Symlinks and
 * anything that resolves outside the source directory are never touched.
 */
export async function sweepTemporaries(source: string): Promise<number> {
  const root = await realpath(source);
  let removed = 0;
  const dirs = [source];
  for (const commit of await subdirectories(checkoutsDir(source))) {
    for (const tree of await subdirectories(commit)) dirs.push(tree);
  }
  for (const dir of dirs) {
    for (const name of await namesIn(dir)) {
      if (TEMPORARY.test(name) && (await removeIfStale(root, join(dir, name)))) removed += 1;
    }
  }
  return removed;
}

async function removeIfStale(root: string, path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (!info || info.isSymbolicLink() || Date.now() - info.mtimeMs < STALE_AFTER_MS) return false;
  if (!(await isInside(root, path))) return false;
  await rm(path, { recursive: true, force: true });
  return true;
}

export async function isInside(root: string, path: string): Promise<boolean> {
  const real = await realpath(path).catch(() => undefined);
  return real !== undefined && real.startsWith(root + sep);
}

/** Real (non-symlink) subdirectories of `dir`, as paths; none when `dir` does not exist. */
export async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name));
}

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

export async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}
