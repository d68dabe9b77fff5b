import { mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkoutDir, checkoutParent, exists, temporaryName } from './cache.js';
import { contentHash } from './content-hash.js';
import { SourceError } from './errors.js';
import type { Mirror, TreeEntry } from './mirror.js';

/**
 * Checkouts: immutable package trees extracted from a mirror at a commit, named by their own contentHash
 * (compat §2.4). A checkout is written beside its final place and renamed, so a reader never sees half of
 * one; a checkout whose bytes no longer match its name is moved aside and replaced.
 */

export interface Checkout {
  dir: string;
  contentHash: string;
}

const BLOB_MODES = new Set(['100644', '100755']);

/** Extracts the package subtree at `commit` from the mirror (the cache is not trusted: always re-read). */
export async function extractCheckout(
  source: string, mirror: Mirror, commit: string, subdir: string | undefined, where: string,
): Promise<Checkout> {
  const files = packageFiles(await mirror.listTree(commit, subdir), subdir, where);
  const contents = await mirror.readBlobs(files.map((file) => ({ oid: file.oid, size: file.size ?? 0 })));
  const parent = checkoutParent(source, commit, subdir);
  const staging = join(parent, temporaryName('staging'));
  try {
    for (const file of files) {
      const target = join(staging, file.relative);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, contents.get(file.oid) ?? Buffer.alloc(0), { mode: file.mode === '100755' ? 0o755 : 0o644 });
    }
    await mkdir(staging, { recursive: true }); // an empty package still gets a (manifest-less) directory
    const hash = await contentHash(staging);
    const ready = checkoutDir(source, commit, subdir, hash);
    if (!(await isIntact(ready, hash))) {
      await moveAsideAndDelete(parent, ready);
      await rename(staging, ready);
    }
    await touch(ready);
    if (!(await exists(join(ready, 'package.yaml')))) {
      throw new SourceError('package_manifest_missing', `no package.yaml in ${where}`);
    }
    return { dir: ready, contentHash: hash };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The checkout named `expected`, when it is in the cache and its bytes still match the name. */
export async function cachedCheckout(
  source: string, commit: string, subdir: string | undefined, expected: string,
): Promise<string | undefined> {
  const dir = checkoutDir(source, commit, subdir, expected);
  if (!(await exists(dir))) return undefined;
  let actual: string;
  try {
    actual = await contentHash(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new SourceError('cache_race', `checkout ${dir} was removed while being read (a concurrent ` +
      'package-sdk cache prune?) — run the command again');
  }
  if (actual !== expected) return undefined;
  await touch(dir);
  return dir;
}

interface PackageFile extends TreeEntry {
  /** Path inside the package (the subdirectory prefix stripped). */
  relative: string;
}

/** The blobs of the package subtree, or a refusal naming the first entry a package may not contain. */
function packageFiles(entries: readonly TreeEntry[], subdir: string | undefined, where: string): PackageFile[] {
  const prefix = subdir === undefined ? '' : `${subdir}/`;
  const files: PackageFile[] = [];
  const spellings = new Map<string, string>();
  for (const entry of entries) {
    if (entry.path === undefined) refuse(where, `the name ${entry.printed} is not valid UTF-8`);
    if (!entry.path.startsWith(prefix)) continue;
    const relative = entry.path.slice(prefix.length);
    const parts = relative.split('/');
    if (parts.some((part) => part === '' || part === '.' || part === '..' || part === '.git')) {
      refuse(where, `'${relative}' has a path component that a package may not contain ('', '.', '..' or '.git')`);
    }
    if (!BLOB_MODES.has(entry.mode) || entry.type !== 'blob') refuse(where, `'${relative}' is ${describeMode(entry)}`);
    for (let depth = 1; depth <= parts.length; depth++) {
      const path = parts.slice(0, depth).join('/');
      const folded = path.toLowerCase();
      const seen = spellings.get(folded);
      if (seen !== undefined && seen !== path) {
        refuse(where, `'${seen}' and '${path}' differ only in case — on a case-insensitive file system they ` +
          'are the same file/directory');
      }
      spellings.set(folded, path);
    }
    files.push({ ...entry, relative });
  }
  return files;
}

function describeMode(entry: TreeEntry): string {
  if (entry.mode === '120000') return 'a symbolic link — symlinks are not allowed in a package from git';
  if (entry.mode === '160000') return 'a submodule — submodules are not allowed in a package';
  return `mode ${entry.mode} (${entry.type}) — only regular files (100644, 100755) are allowed`;
}

function refuse(where: string, why: string): never {
  throw new SourceError('git_tree_refused', `${where}: ${why}`);
}

async function isIntact(dir: string, hash: string): Promise<boolean> {
  if (!(await exists(dir))) return false;
  return contentHash(dir).then((actual) => actual === hash, () => false);
}

/** A corrupt checkout is renamed first, so no reader ever sees it half-deleted. */
async function moveAsideAndDelete(parent: string, dir: string): Promise<void> {
  if (!(await exists(dir))) return;
  const spoiled = join(parent, temporaryName('spoiled'));
  await rename(dir, spoiled);
  await rm(spoiled, { recursive: true, force: true });
}

async function touch(dir: string): Promise<void> {
  const now = new Date();
  await utimes(dir, now, now);
}
