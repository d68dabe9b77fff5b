/**
 * Where a package's repository begins, and the copy of schema/v1 committed there: the editor modelines of
 * the files `init` and `add` write point at that copy by a path inside the repository, so completion and
 * hover work after `git clone` on any machine, whatever package-sdk is installed there, if at all.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createFile } from '../fs/write.js';
import { SCHEMA_DIR } from './hints.js';

/**
 * The folder of the repository that holds the schemas. A dot folder: when the package is the repository, `plan`
 * sends the package's files to the core and leaves dot folders out, as it leaves `.github` out.
 */
export const REPOSITORY_SCHEMA_DIR = '.schema/v1';

/**
 * The root of the repository of `dir`: the nearest folder at or above it holding `.git`, else one that already
 * holds the schemas, else `dir` itself (a package outside any repository is its own).
 */
export function repositoryRoot(dir: string): string {
  return nearestAbove(dir, (folder) => existsSync(join(folder, '.git')))
    ?? nearestAbove(dir, (folder) => existsSync(join(folder, REPOSITORY_SCHEMA_DIR, 'object.schema.json')))
    ?? dir;
}

function nearestAbove(dir: string, holds: (folder: string) => boolean): string | undefined {
  for (let folder = dir; ; folder = dirname(folder)) {
    if (holds(folder)) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** The schema files of schema/v1 (the CLI's output schemas in cli/ are not for editors). */
function schemaFiles(): string[] {
  return readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json')).sort();
}

/**
 * Writes the schemas into `root`/.schema/v1 where a file is missing and returns the files it wrote. Files that
 * are there are kept: they may be what other packages of the repository were written against.
 */
export async function writeRepositorySchemas(root: string, show: (path: string) => string): Promise<string[]> {
  const written: string[] = [];
  for (const name of schemaFiles()) {
    const path = join(root, REPOSITORY_SCHEMA_DIR, name);
    if (existsSync(path)) continue;
    await createFile(path, readFileSync(join(SCHEMA_DIR, name), 'utf8'), show(path));
    written.push(show(path));
  }
  return written;
}
