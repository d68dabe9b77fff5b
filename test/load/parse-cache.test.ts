/**
 * The stored reports of the workspace index: one file a set of targets, a bounded number of them, each valid
 * while its inputs hold what they held — by stat, or by what a changed file says.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { loadSourceFile, parseSource } from '../../src/load/source.js';

const ROOT = mkdtempSync(join(tmpdir(), 'package-sdk-parse-cache-'));
const CACHE = join(ROOT, 'cache');
const WORKSPACE = join(ROOT, 'workspace');
/** Longer than the index's racy window: stats older than this are trusted. */
const settle = () => new Promise((done) => setTimeout(done, 120));

afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** Loads `file` through a fresh index (as one run of `check` does) and stores `report` made from it. */
async function storeAfterLoading(file: string, key: string, report: unknown): Promise<void> {
  const index = new ParseCache(CACHE, WORKSPACE);
  useParseCache(index);
  try {
    expect((await loadSourceFile(file, file)).document).toBeDefined();
  } finally {
    useParseCache(undefined);
  }
  index.flush();
  index.storeReport(key, report, [], []);
}

describe('stored reports of the workspace index', () => {
  it('keeps each set of targets in a file of its own, and the latest eight of them', async () => {
    const file = join(WORKSPACE, 'role.yaml');
    mkdirSync(WORKSPACE, { recursive: true });
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: buyer\nspec: {name: Buyer}\n');
    await settle();
    for (let i = 0; i < 10; i++) await storeAfterLoading(file, `targets ${i}`, { run: i });
    const results = readdirSync(CACHE).filter((name) => name.includes('.results.'));
    expect(results).toHaveLength(8);
    const index = new ParseCache(CACHE, WORKSPACE);
    expect(index.reusableReport('targets 9', parseSource)).toEqual({ run: 9 });
    expect(index.reusableReport('targets 0', parseSource), 'the oldest went').toBeUndefined();

    appendFileSync(file, '# a comment past the last node\n');
    await settle();
    expect(new ParseCache(CACHE, WORKSPACE).reusableReport('targets 9', parseSource)).toEqual({ run: 9 });
    appendFileSync(file, 'extra: 1\n');
    await settle();
    expect(new ParseCache(CACHE, WORKSPACE).reusableReport('targets 9', parseSource), 'a value added').toBeUndefined();
  });
});
