// Whether the build (dist/, the validators, the bundles, oclif.manifest.json — written last) is older than a
// source: setup and prepare build only then.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function buildIsStale() {
  const built = join(ROOT, 'oclif.manifest.json');
  return !existsSync(built) ||
    Math.max(newestMtime(join(ROOT, 'src')), statSync(join(ROOT, 'package.json')).mtimeMs) > statSync(built).mtimeMs;
}
