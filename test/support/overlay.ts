/**
 * Fixtures without copies: a test states only what its case is about by laying a few files over a base
 * package (or installation) of fixtures/, in a fresh temporary directory it may change at will.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { parse } from 'yaml';

export const FIXTURES = join(import.meta.dirname, '../../fixtures');

/** File contents by path relative to the base; `null` removes the file (or folder) the base has there. */
export type Overlay = Readonly<Record<string, string | Uint8Array | null>>;

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

/**
 * A case of fixtures/check laid out for checking, in a new temporary directory whose path is returned: the base
 * its case.yaml names (fixtures/check/_bases/<base>), less the paths it lists under `remove`, with every other
 * file of the case directory laid over it at the same path (fixtures/check/README.md).
 */
export function overlayCase(caseDir: string): string {
  const { base, files } = caseLayers(caseDir);
  return overlay(base, files);
}

/** A case of fixtures/check as its base (an absolute path) and what the case changes of it (see `overlayCase`). */
export function caseLayers(caseDir: string): { base: string; files: Overlay } {
  const manifest = parse(readFileSync(join(caseDir, CASE_MANIFEST), 'utf8')) as CaseManifest;
  const removed = Object.fromEntries((manifest.remove ?? []).map((path) => [path, null]));
  return { base: join(FIXTURES, 'check/_bases', manifest.base), files: { ...removed, ...filesIn(caseDir, CASE_FILES) } };
}

/** What a case directory says of itself, beside the files it lays over its base. */
export const CASE_MANIFEST = 'case.yaml';
export const CASE_EXPECTED = 'expected.yaml';
const CASE_FILES = [CASE_MANIFEST, CASE_EXPECTED];

interface CaseManifest {
  base: string;
  remove?: string[];
}

/** The files under `dir` as an overlay of their bytes, by `/`-separated path; `skip` names top-level files to leave out. */
export function filesIn(dir: string, skip: readonly string[] = []): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (!skip.includes(path)) files[path] = readFileSync(join(dir, path));
  }
  return files;
}
