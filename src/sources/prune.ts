import { lstat, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, parse, resolve } from 'node:path';
import {
  cacheRoot, checkoutDir, checkoutsDir, mirrorDir, sourceDir, STALE_AFTER_MS, subdirectories, temporaryName,
  withSourceLock,
} from './cache.js';
import { isGitLockSource, LOCK_FILE_NAME, readLock } from './lock-file.js';
import { transportOf } from './source.js';
import { Refusal } from '../fs/refusal.js';

/**
 * `package-sdk cache prune` (compat §2.8): remove the checkouts that no lock file references and that
 * were not used within the hour; mirrors stay (a checkout is extracted again without the network).
 * `--all` empties the cache, the parsed files `check` keeps included. Every lock file is read before
 * anything is deleted.
 */

export interface PruneOptions {
  /** Lock files to keep checkouts for; default: every packages.lock under `cwd`. */
  locks?: readonly string[];
  /** Remove the mirrors and checkouts of every source. */
  all?: boolean;
  cwd?: string;
  cacheDir?: string;
}

export interface PruneReport {
  cacheDir: string;
  /** The lock files whose checkouts were kept. */
  lockFiles: string[];
  /** Checkouts removed (with `all`: source directories emptied). */
  removed: number;
  keptByLock: number;
  recentlyUsed: number;
}


const SKIPPED_DIRS = new Set(['node_modules', 'venv', '__pycache__', 'site-packages']);
const SEARCH_DEPTH = 6;

export async function prune(options: PruneOptions = {}): Promise<PruneReport> {
  const root = options.cacheDir ?? cacheRoot();
  const report: PruneReport = { cacheDir: root, lockFiles: [], removed: 0, keptByLock: 0, recentlyUsed: 0 };
  const sources = await subdirectories(join(root, 'git'));
  if (options.all) {
    for (const source of sources) {
      await withSourceLock(source, async () => {
        await removeAside(source, checkoutsDir(source));
        await removeAside(source, mirrorDir(source));
      });
      report.removed += 1;
    }
    await rm(join(root, 'check'), { recursive: true, force: true }); // what check remembers of parsed files
    return report;
  }
  report.lockFiles = options.locks?.length ? options.locks.map((file) => resolve(file)) : await findLockFiles(options.cwd ?? process.cwd());
  const keep = await referencedCheckouts(root, report.lockFiles);
  for (const source of sources) {
    await withSourceLock(source, () => pruneSource(source, keep, report));
  }
  return report;
}

/** Every lock is read first: one unreadable lock deletes nothing. */
async function referencedCheckouts(root: string, lockFiles: readonly string[]): Promise<Set<string>> {
  const keep = new Set<string>();
  for (const file of lockFiles) {
    const document = await readLock(file).catch((error: Error) => {
      throw new Refusal('prune_refused', `${error.message} — nothing was removed`);
    });
    if (!document) throw new Refusal('prune_refused', `${file}: no such lock file — nothing was removed`);
    for (const entry of document.packages) {
      const source = entry.source;
      if (!isGitLockSource(source) || transportOf(source.git) === undefined || !/^[0-9a-f]{40}$/.test(entry.commit ?? '')) continue;
      keep.add(checkoutDir(sourceDir(root, source.git), entry.commit!, source.path, entry.contentHash));
    }
  }
  return keep;
}

async function pruneSource(source: string, keep: ReadonlySet<string>, report: PruneReport): Promise<void> {
  for (const commit of await subdirectories(checkoutsDir(source))) {
    for (const tree of await subdirectories(commit)) {
      for (const checkout of await subdirectories(tree)) {
        if (parse(checkout).base.startsWith('.')) continue;
        if (keep.has(checkout)) report.keptByLock += 1;
        else if (await usedRecently(checkout)) report.recentlyUsed += 1;
        else {
          await removeAside(tree, checkout);
          report.removed += 1;
        }
      }
      await rmdir(tree).catch(() => undefined); // only when empty
    }
    await rmdir(commit).catch(() => undefined);
  }
}

async function usedRecently(dir: string): Promise<boolean> {
  const info = await lstat(dir);
  return Date.now() - info.mtimeMs < STALE_AFTER_MS;
}

/** Renamed first, so that nobody reads half a deleted checkout; a crash leaves a `.pruned-*` to sweep. */
async function removeAside(parent: string, dir: string): Promise<void> {
  const aside = join(parent, temporaryName('pruned'));
  try {
    await rename(dir, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
}

async function findLockFiles(cwd: string): Promise<string[]> {
  const start = resolve(cwd);
  if (start === resolve(homedir()) || start === parse(start).root) {
    throw new Refusal('prune_refused', `lock files are not searched in ${start}: it is not a project directory — run the ` +
      'command in a project, name lock files (--lock) or clear the whole cache explicitly (--all)');
  }
  const found: string[] = [];
  await searchLocks(start, 0, found);
  if (found.length === 0) {
    throw new Refusal('prune_refused', `no ${LOCK_FILE_NAME} under ${start} — nothing was removed: name lock files (--lock) ` +
      'or clear the whole cache explicitly (--all)');
  }
  return found.sort();
}

async function searchLocks(dir: string, depth: number, found: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile() && entry.name === LOCK_FILE_NAME) found.push(join(dir, entry.name));
    else if (entry.isDirectory() && depth < SEARCH_DEPTH && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) {
      await searchLocks(join(dir, entry.name), depth + 1, found);
    }
  }
}
