/** A folder of real files loads as it is: no finding, and every string maps back to where it is written. */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { loadSourceFile } from '../../src/load/source.js';
import { expectExactScalarMap, stringsOf } from './expect-scalar.js';

/** The YAML and JSON files under `dir`, relative to `root`. */
export function sourceFilesUnder(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFilesUnder(root, path);
    return /\.(ya?ml|json)$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

/** Loads `file` (relative to `root`) and expects no finding and an exact map of every string, character by character. */
export async function expectLoadsClean(root: string, file: string): Promise<void> {
  const result = await loadSourceFile(join(root, file), file);
  expect(result.findings).toEqual([]);
  expect(result.document!.value).not.toBeUndefined();
  for (const [pointer, value] of stringsOf(result.document!.value)) expectExactScalarMap(result.document!, pointer, value);
}
