/**
 * The stored reports of the workspace index: one file a set of targets, a bounded number of them, each valid
 * while its inputs hold what they held — by stat, or by what a changed file says.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import type { SourceDocument } from '../../src/json/document.js';
import { loadSourceFile, parseSource } from '../../src/load/source.js';

const ROOT = mkdtempSync(join(tmpdir(), 'package-sdk-parse-cache-'));
const CACHE = join(ROOT, 'cache');
const WORKSPACE = join(ROOT, 'workspace');
/** Longer than the index's racy window: stats older than this are trusted. */
const settle = () => new Promise((done) => setTimeout(done, 120));

afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** Loads `file` through a fresh index (as one run of `check` does) and stores `report` made from it (with `memo`). */
async function storeAfterLoading(file: string, key: string, report: unknown, memo?: unknown): Promise<SourceDocument> {
  const index = new ParseCache(CACHE, WORKSPACE);
  useParseCache(index);
  try {
    const { document } = await loadSourceFile(file, file);
    expect(document).toBeDefined();
    index.flush();
    index.storeReport(key, report, [], [], memo);
    return document!;
  } finally {
    useParseCache(undefined);
  }
}

/** The memo the index holds for `key`, and whether `file` changed since it was kept (as the next run loads it). */
async function earlierRunOf(file: string, key: string): Promise<{ memo: unknown; changed: boolean } | undefined> {
  const index = new ParseCache(CACHE, WORKSPACE);
  useParseCache(index);
  try {
    const { document } = await loadSourceFile(file, file);
    const earlier = index.earlierRun(key);
    return earlier && { memo: earlier.memo, changed: earlier.changedSince(document!) };
  } finally {
    useParseCache(undefined);
  }
}

describe('stored reports of the workspace index', () => {
  it('keeps each set of targets in a file of its own, and the latest eight of them', async () => {
    const file = join(WORKSPACE, 'role.yaml');
    mkdirSync(WORKSPACE, { recursive: true });
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: buyer\nspec: {name: Buyer}\n');
    await settle();
    for (let i = 0; i < 10; i++) await storeAfterLoading(file, `targets ${i}`, { run: i }, { memo: i });
    const results = readdirSync(CACHE).filter((name) => name.includes('.results.'));
    expect(results).toHaveLength(8);
    expect(readdirSync(CACHE).filter((name) => name.includes('.memo.')), 'a memo goes with its report').toHaveLength(8);
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

  it("keeps a run's memo beside its report, and knows which documents changed since", async () => {
    const file = join(WORKSPACE, 'agent.yaml');
    mkdirSync(WORKSPACE, { recursive: true });
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: agent\nspec: {name: Agent}\n');
    await settle();
    await storeAfterLoading(file, 'memo', { run: 1 }, { runs: 1 });
    expect(await earlierRunOf(file, 'memo')).toEqual({ memo: { runs: 1 }, changed: false });
    appendFileSync(file, '# a comment\n');
    expect(await earlierRunOf(file, 'memo'), 'other bytes').toEqual({ memo: { runs: 1 }, changed: true });
    // A report stored without a memo (say its writing failed) is never paired with the memo of an earlier run.
    await storeAfterLoading(file, 'memo', { run: 2 });
    expect(await earlierRunOf(file, 'memo')).toBeUndefined();
    expect(await earlierRunOf(file, 'nothing stored')).toBeUndefined();
  });
});
