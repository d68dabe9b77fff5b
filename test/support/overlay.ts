/**
 * Fixtures without copies: a test states only what its case is about by laying a few files over a base
 * package (or installation) of fixtures/, in a fresh temporary directory it may change at will.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '../../fixtures');

/** File contents by path relative to the base; `null` removes the file (or folder) the base has there. */
export type Overlay = Readonly<Record<string, string | null>>;

/**
 * A copy of `base` (absolute, or relative to fixtures/) with `files` laid over it, in a new temporary
 * directory whose path is returned. The caller removes it when done (or leaves it to the OS's tmp cleaning).
 */
export function overlay(base: string, files: Overlay = {}, prefix = 'package-sdk-fixture-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(isAbsolute(base) ? base : join(FIXTURES, base), dir, { recursive: true });
  layOver(dir, files);
  return dir;
}

/** Writes `files` into `dir` (creating folders), removing those mapped to `null`. */
export function layOver(dir: string, files: Overlay): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    if (content === null) {
      rmSync(target, { recursive: true, force: true });
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}
