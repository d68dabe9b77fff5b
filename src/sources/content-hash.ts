import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { byCodePoint } from '../json/canonical.js';
import { sha256Digester } from '../json/digest.js';

/**
 * `contentHash` of a package directory, byte-compatible with the reference installer (compat §2.3):
 * SHA-256 over `path \0 length \0 bytes` of every kept file, paths in code-point order. The same value is
 * the lock's `contentHash`, the name of a git checkout in the cache and the `installHash` sent to the core.
 */
export async function contentHash(dir: string): Promise<string> {
  // Synchronous reads: a package of a thousand files is hashed by every first plan and lock, and each step of a
  // small read queued on the thread pool cost more than the reading.
  const hasher = sha256Digester();
  for (const path of await hashedFiles(dir)) {
    const bytes = readFileSync(join(dir, path));
    hasher.update(path);
    hasher.update(`\0${bytes.length}\0`);
    hasher.update(bytes);
  }
  return hasher.digest();
}

/** Relative paths (with `/`) of the files that `contentHash` covers, in hashing order. */
export async function hashedFiles(dir: string): Promise<string[]> {
  const paths: string[] = [];
  await collectFiles(dir, '', paths);
  return paths.filter((path) => !isExcluded(path)).sort(byCodePoint);
}

/** Symlinked directories are not walked; a symlink to a file counts with the target's bytes. */
async function collectFiles(root: string, prefix: string, out: string[]): Promise<void> {
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) await collectFiles(root, path, out);
    else if (entry.isFile() || (entry.isSymbolicLink() && (await isFileBehindLink(join(root, path))))) out.push(path);
  }
}

async function isFileBehindLink(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false; // a dangling link is not a file
  }
}

const EXCLUDED_NAMES = new Set(['.DS_Store', 'Thumbs.db']);
const EXCLUDED_COMPONENTS = new Set(['__pycache__', '.git']);

/** Editor and OS litter never changes what gets installed; `.layout/` holds screen layouts of the author. */
export function isExcluded(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1];
  return parts[0] === '.layout' || EXCLUDED_NAMES.has(name) || extensionOf(name) === '.pyc' ||
    parts.some((part) => EXCLUDED_COMPONENTS.has(part));
}

/** Python's `os.path.splitext` suffix: leading dots do not start an extension. */
function extensionOf(name: string): string {
  const stem = name.replace(/^\.+/, '');
  const dot = stem.lastIndexOf('.');
  return dot < 0 ? '' : stem.slice(dot);
}
