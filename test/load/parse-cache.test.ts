/**
 * The stored reports of the workspace index: one file a set of targets, a bounded number of them, each valid
 * while its inputs hold what they held — by stat, or by what a changed file says.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache, useParseCache, type InputsListed } from '../../src/load/parse-cache.js';
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

  it('lists the inputs of a report as the report it replaces did while its folders list the same entries, and walks the trees when one does not', async () => {
    const tree = join(WORKSPACE, 'tree');
    const roles = join(tree, 'roles');
    mkdirSync(roles, { recursive: true });
    const role = (key: string) => `apiVersion: taimen.ai/v1\nkind: Role\nkey: ${key}\nspec: {name: ${key}}\n`;
    for (const key of ['buyer', 'seller']) writeFileSync(join(roles, `${key}.yaml`), role(key));
    writeFileSync(join(tree, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: tree\nspec: {}\n');
    const files = () => readdirSync(tree, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    /** One run: asks for the stored report, loads every file of the tree when it does not stand, stores `run`. */
    const run = async (report: unknown): Promise<{ reused: unknown; listed: InputsListed | undefined }> => {
      const index = new ParseCache(CACHE, WORKSPACE);
      const reused = index.reusableReport('tree', parseSource);
      if (reused !== undefined) return { reused, listed: undefined };
      useParseCache(index);
      try {
        for (const file of files()) await loadSourceFile(file, file);
        index.flush();
        return { reused, listed: index.storeReport('tree', report, [tree], [WORKSPACE]) };
      } finally {
        useParseCache(undefined);
      }
    };
    const edit = (file: string, from: string, to: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
    await settle();
    expect(await run(1)).toEqual({ reused: undefined, listed: 'walked' });
    expect(await run(2), 'nothing changed').toEqual({ reused: 1, listed: undefined });

    edit(join(roles, 'buyer.yaml'), 'name: buyer', 'name: Buyer of goods');
    await settle();
    expect(await run(2), 'a value edited').toEqual({ reused: undefined, listed: 'as stored' });
    expect(await run(3), 'the edited file is an input as it is now').toEqual({ reused: 2, listed: undefined });
    edit(join(roles, 'seller.yaml'), 'name: seller', 'name: Seller');
    expect(await run(3), 'edited within the racy window: known by its hash').toEqual({ reused: undefined, listed: 'as stored' });
    expect(await run(4)).toEqual({ reused: 3, listed: undefined });
    writeFileSync(join(roles, 'buyer.yaml.tmp'), role('buyer').replace('name: buyer', 'name: Buyer'));
    renameSync(join(roles, 'buyer.yaml.tmp'), join(roles, 'buyer.yaml'));
    writeFileSync(join(WORKSPACE, 'beside.txt'), 'a file beside the tree, where packages are looked for\n');
    await settle();
    expect(await run(4), 'saved by a rename over the file: its folder lists the same entries').toEqual({ reused: undefined, listed: 'as stored' });
    expect(await run(5)).toEqual({ reused: 4, listed: undefined });

    writeFileSync(join(roles, 'approver.yaml'), role('approver'));
    await settle();
    expect(await run(5), 'a file added: its folder lists another entry').toEqual({ reused: undefined, listed: 'walked' });
    expect(await run(6), 'the added file is an input').toEqual({ reused: 5, listed: undefined });
    edit(join(roles, 'approver.yaml'), 'name: approver', 'name: Approver');
    await settle();
    expect(await run(6), 'so is its value').toEqual({ reused: undefined, listed: 'as stored' });
    rmSync(join(roles, 'seller.yaml'));
    await settle();
    expect(await run(7), 'a file removed').toEqual({ reused: undefined, listed: 'walked' });
    expect(await run(8)).toEqual({ reused: 7, listed: undefined });
  });

  it('keeps the hash of each file changed in one run at its own place among the inputs', async () => {
    const tree = join(WORKSPACE, 'several');
    mkdirSync(join(tree, 'roles'), { recursive: true });
    const names = ['a', 'b', 'c', 'd', 'e'];
    const file = (name: string) => join(tree, 'roles', `${name}.yaml`);
    for (const name of names) writeFileSync(file(name), `apiVersion: taimen.ai/v1\nkind: Role\nkey: ${name}\nspec: {name: ${name}}\n`);
    writeFileSync(join(tree, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: several\nspec: {}\n');
    const run = async (report: unknown): Promise<unknown> => {
      const index = new ParseCache(CACHE, WORKSPACE);
      const reused = index.reusableReport('several', parseSource);
      if (reused !== undefined) return reused;
      useParseCache(index);
      try {
        for (const path of [join(tree, 'package.yaml'), ...names.map(file)]) await loadSourceFile(path, path);
        index.flush();
        index.storeReport('several', report, [tree], []);
        return undefined;
      } finally {
        useParseCache(undefined);
      }
    };
    await settle();
    expect(await run(1)).toBeUndefined();
    // Edited just now, so their stats are not trusted: the next run knows each by the hash stored at its place.
    for (const name of ['b', 'd', 'e']) writeFileSync(file(name), readFileSync(file(name), 'utf8').replace(`name: ${name}`, `name: ${name.toUpperCase()}`));
    expect(await run(2), 'three values edited').toBeUndefined();
    expect(await run(3), 'each as it is now').toBe(2);
    for (const name of ['a', 'c', 'e']) appendFileSync(file(name), '# a comment\n');
    expect(await run(3), 'three comments added').toBe(2);
    expect(await run(3), 'each kept with the hash of its comment').toBe(2);
    writeFileSync(file('c'), readFileSync(file('c'), 'utf8').replace('name: c', 'name: C'));
    expect(await run(4), 'one of them edited again').toBeUndefined();
  });

  it('reads a document again from its file when the contents beside the columns are not the ones they name, and refuses one changed meanwhile', async () => {
    const cache = join(ROOT, 'contents-cache');
    const file = join(WORKSPACE, 'contents', 'role.yaml');
    mkdirSync(join(WORKSPACE, 'contents'), { recursive: true });
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: buyer\nspec: {name: Buyer}\n');
    await settle();
    const first = new ParseCache(cache, WORKSPACE);
    useParseCache(first);
    try {
      await loadSourceFile(file, file);
    } finally {
      useParseCache(undefined);
    }
    first.flush();
    const contents = readdirSync(cache).filter((name) => name.includes('.contents.'));
    expect(contents).toHaveLength(1);
    const placed = () => new ParseCache(cache, WORKSPACE).lookup(file, 'role.yaml')?.document;
    expect(placed()?.value).toEqual({ apiVersion: 'taimen.ai/v1', kind: 'Role', key: 'buyer', spec: { name: 'Buyer' } });

    // Another stamp: as if a run stopped between writing the contents and the columns.
    const path = join(cache, contents[0]!);
    writeFileSync(path, Buffer.concat([Buffer.from('0'.repeat(32)), Buffer.alloc(readFileSync(path).length - 32, 'x')]));
    const reread = placed();
    expect(reread?.text).toBe(readFileSync(file, 'utf8'));
    expect(reread?.value).toEqual({ apiVersion: 'taimen.ai/v1', kind: 'Role', key: 'buyer', spec: { name: 'Buyer' } });
    expect(reread?.locate('/spec/name')).toEqual({ line: 4, column: 14, endLine: 4, endColumn: 19 });
    rmSync(path);
    const changed = placed();
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: buyer\nspec: {name: Other}\n');
    expect(() => changed?.value).toThrow(expect.objectContaining({ code: 'index_changed', message: 'role.yaml changed while check was reading it' }));
  });

  it("places an object by the envelope its shard keeps, and reads the document when the shard's envelope points past its values", async () => {
    const cache = join(ROOT, 'envelope-cache');
    const dir = join(WORKSPACE, 'envelopes');
    mkdirSync(dir, { recursive: true });
    const role = join(dir, 'role.yaml');
    const process = join(dir, 'process.yaml');
    writeFileSync(role, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: buyer\nspec: {name: Buyer}\n');
    writeFileSync(process, 'apiVersion: taimen.ai/v1\nkind: Process\nkey: buying\nspec: {version: 2, displayName: Buying, data: {$ref: data.json}}\n');
    await settle();
    const first = new ParseCache(cache, WORKSPACE);
    useParseCache(first);
    try {
      for (const file of [role, process]) await loadSourceFile(file, file);
    } finally {
      useParseCache(undefined);
    }
    first.flush();
    const envelopes = (index: ParseCache) => [role, process].map((file) => index.envelopeOf(index.lookup(file, file)!.document!));
    expect(envelopes(new ParseCache(cache, WORKSPACE))).toEqual([
      { apiVersion: 'taimen.ai/v1', kind: 'Role', key: 'buyer', spec: {} },
      { apiVersion: 'taimen.ai/v1', kind: 'Process', key: 'buying', spec: { version: 2, data: { $ref: 'data.json' } } },
    ]);

    // A damaged shard: every envelope points past the values it holds.
    for (const name of readdirSync(cache).filter((name) => /\.files\.\d+$/.test(name))) {
      const columns = deserialize(readFileSync(join(cache, name))) as { heads: Uint32Array; headValues: unknown[] };
      columns.heads.fill(columns.headValues.length);
      writeFileSync(join(cache, name), serialize(columns));
    }
    const damaged = new ParseCache(cache, WORKSPACE);
    expect(envelopes(damaged)).toEqual([undefined, undefined]);
    expect(damaged.lookup(role, role)?.document?.value).toEqual({ apiVersion: 'taimen.ai/v1', kind: 'Role', key: 'buyer', spec: { name: 'Buyer' } });
  });

  it('forgets a file gone from the disk once a later run reads its shard, and keeps every file it loaded', async () => {
    const cache = join(ROOT, 'gone-cache');
    const dir = join(WORKSPACE, 'gone');
    mkdirSync(dir, { recursive: true });
    const files = Array.from({ length: 64 }, (_, i) => join(dir, `role-${i}.yaml`));
    files.forEach((file, i) => writeFileSync(file, `apiVersion: taimen.ai/v1\nkind: Role\nkey: role-${i}\nspec: {name: Role ${i}}\n`));
    await settle();
    const run = async (loaded: string[]) => {
      const index = new ParseCache(cache, WORKSPACE);
      useParseCache(index);
      try {
        for (const file of loaded) await loadSourceFile(file, file);
      } finally {
        useParseCache(undefined);
      }
      index.flush();
    };
    const shards = () =>
      readdirSync(cache)
        .filter((name) => /\.files\.\d+$/.test(name))
        .map((name) => (deserialize(readFileSync(join(cache, name))) as { paths: string }).paths.split('\0'));
    const held = () => shards().flat().sort();
    await run(files);
    expect(held()).toEqual([...files].sort());
    // A file removed from a shard that holds others: the next run loads those, and so reads the shard.
    const gone = shards().find((paths) => paths.length > 1)![0]!;
    rmSync(gone);
    await settle();
    await run(files.filter((file) => file !== gone));
    expect(held()).toEqual(files.filter((file) => file !== gone).sort());
  });

  it("drops another build's files of the workspace once left alone for a week, and no other workspace's, on the first report of a day", async () => {
    const file = join(WORKSPACE, 'builds.yaml');
    mkdirSync(WORKSPACE, { recursive: true });
    writeFileSync(file, 'apiVersion: taimen.ai/v1\nkind: Role\nkey: builds\nspec: {name: Builds}\n');
    await settle();
    await storeAfterLoading(file, 'builds', { run: 1 });
    const own = readdirSync(CACHE).find((name) => name.includes('.results.'))!;
    const workspace = own.slice(0, own.indexOf('-'));
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    const planted = {
      oldBuild: `${workspace}-0000000000000000.files.3`,
      recentBuild: `${workspace}-1111111111111111.files.3`,
      otherWorkspace: `ffffffffffffffff-0000000000000000.files.3`,
    };
    for (const name of Object.values(planted)) writeFileSync(join(CACHE, name), 'an index of another build');
    for (const name of [planted.oldBuild, planted.otherWorkspace]) utimesSync(join(CACHE, name), eightDaysAgo, eightDaysAgo);
    // The report of run 1 is minutes old: other builds' files are looked over on the first report of a day.
    await storeAfterLoading(file, 'builds', { run: 2 });
    expect(readdirSync(CACHE)).toContain(planted.oldBuild);
    const yesterday = new Date(Date.now() - 25 * 60 * 60 * 1000);
    for (const name of readdirSync(CACHE).filter((name) => name.includes('.results.'))) utimesSync(join(CACHE, name), yesterday, yesterday);
    await storeAfterLoading(file, 'builds', { run: 3 });
    const left = readdirSync(CACHE);
    expect(left).not.toContain(planted.oldBuild);
    expect(left).toContain(planted.recentBuild);
    expect(left).toContain(planted.otherWorkspace);
    expect(left).toContain(own);
  });

  it('reads every document right after its shard was written, and again after a second write in the same run', async () => {
    const cache = join(ROOT, 'rewrite-cache');
    const dir = join(WORKSPACE, 'rewrite');
    mkdirSync(dir, { recursive: true });
    const source = (i: number, name = `Role ${i}`) => `apiVersion: taimen.ai/v1\nkind: Role\nkey: role-${i}\nspec: {name: ${name}}\n`;
    const files = Array.from({ length: 100 }, (_, i) => join(dir, `role-${i}.yaml`)); // a few to a shard, in every shard
    files.forEach((file, i) => writeFileSync(file, source(i)));
    await settle();
    /** One run of the index over every file: its documents, as `lookup` or `load` gave them. */
    const loadAll = async (index: ParseCache): Promise<SourceDocument[]> => {
      useParseCache(index);
      try {
        return await Promise.all(files.map(async (file) => (await loadSourceFile(file, file)).document!));
      } finally {
        useParseCache(undefined);
      }
    };
    const expectRead = (index: ParseCache, documents: SourceDocument[], texts: string[], when: string) => {
      documents.forEach((document, i) => {
        expect(document.text, `${when}: ${files[i]}`).toBe(texts[i]);
        expect((document.value as { spec: unknown }).spec, when).toEqual({ name: texts[i]!.match(/name: (.*)\}/)![1] });
        expect(index.writtenText(files[i]!), when).toBe(texts[i]);
      });
    };
    const first = new ParseCache(cache, WORKSPACE);
    const parsed = await loadAll(first);
    first.flush();
    const texts = files.map((_, i) => source(i));
    expectRead(first, parsed, texts, 'parsed, then written');

    writeFileSync(files[0]!, source(0, 'An edited and longer name'));
    texts[0] = source(0, 'An edited and longer name');
    await settle();
    const second = new ParseCache(cache, WORKSPACE);
    const documents = await loadAll(second);
    expect(documents[1]!.text).toBe(texts[1]); // one stored entry read before the write
    second.flush();
    expectRead(second, documents, texts, 'after the write');
    second.markClean(documents[2]!, 'object');
    second.flush();
    expectRead(second, documents, texts, 'after a second write');
    expectRead(new ParseCache(cache, WORKSPACE), await loadAll(new ParseCache(cache, WORKSPACE)), texts, 'the next run');
  });
});
