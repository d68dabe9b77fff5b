/** The round trip of `docs package --write` on a copy of a package whose README holds the generated block. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect } from 'vitest';
import { packageDocs } from '../../src/docs/package-readme.js';

/**
 * Copies the package in `dir`, drops `line` from the generated block of its README, and expects the copy to
 * be stale, `--write` to restore exactly the committed README, and the copy to be fresh again.
 */
export async function expectWriteRestores(dir: string, line: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'package-sdk-docs-'));
  try {
    const copy = join(scratch, basename(dir));
    cpSync(dir, copy, { recursive: true });
    const readme = join(copy, 'README.md');
    const committed = readFileSync(readme, 'utf8');
    expect(committed).toContain(line);
    writeFileSync(readme, committed.replace(line, ''));
    expect((await packageDocs(copy)).fresh).toBe(false);
    expect(await packageDocs(copy, { write: true })).toMatchObject({ fresh: false, written: true });
    expect(readFileSync(readme, 'utf8')).toBe(committed);
    expect(await packageDocs(copy)).toMatchObject({ fresh: true });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
