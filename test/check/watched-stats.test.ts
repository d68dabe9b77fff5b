/**
 * The stats a resident checker holds between runs (src/load/watched-stats.ts), on a real folder with the file
 * system's real events: a stat is held once its folder was followed before the run that took it, and let go as
 * soon as an event names its path, its folder's entries or a folder above it.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsDelivered, FORGET_ALL_AFTER, sharedFileSystemOf, WatchedStats } from '../../src/load/watched-stats.js';
import type { StatKey } from '../../src/load/parse-cache.js';

let root: string;
let outside: string;
let watched: WatchedStats;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'package-sdk-watched-'));
  outside = mkdtempSync(join(tmpdir(), 'package-sdk-outside-'));
  mkdirSync(join(root, 'roles'));
  for (const name of ['a.yaml', 'b.yaml']) writeFileSync(join(root, 'roles', name), `key: ${name}\n`);
  watched = new WatchedStats(true);
});

afterEach(() => {
  watched.close();
  for (const dir of [root, outside]) rmSync(dir, { recursive: true, force: true });
});

/** The stat of each path as the index keeps it (a folder's size is -1). */
function statsOf(...paths: string[]): Map<string, StatKey> {
  return new Map(paths.map((path) => {
    const info = statSync(path);
    return [path, [info.isDirectory() ? -1 : info.size, info.mtimeMs, info.ctimeMs, info.ino]];
  }));
}


/** A run that took the stats of `paths`: what it was handed, then what it took. */
async function run(...paths: string[]): Promise<string[]> {
  await eventsDelivered();
  const handed = [...watched.beforeRun().keys()].sort();
  watched.afterRun(statsOf(...paths));
  return handed;
}

const ROLES = () => [join(root, 'roles'), join(root, 'roles/a.yaml'), join(root, 'roles/b.yaml')];

describe('the stats a resident checker holds', () => {
  it('holds a stat only when its folder was followed before the run that took it', async () => {
    expect(await run(...ROLES())).toEqual([]);
    expect(watched.folders, 'followed after the first run').toBe(1);
    expect(await run(...ROLES()), 'taken while not yet followed').toEqual([]);
    expect(await run(...ROLES())).toEqual(ROLES().sort());
  });

  it('lets go of an edited file and of its folder, and holds the others', async () => {
    await run(...ROLES());
    await run(...ROLES());
    writeFileSync(join(root, 'roles/a.yaml'), 'key: edited\n');
    expect(await run(...ROLES())).toEqual([join(root, 'roles/b.yaml')]);
    expect(await run(...ROLES()), 'taken again after the edit').toEqual(ROLES().sort());
  });

  it('lets go of a file written elsewhere and renamed over it, as editors save', async () => {
    await run(...ROLES());
    await run(...ROLES());
    writeFileSync(join(root, 'roles/.b.yaml.tmp'), 'key: renamed\n');
    renameSync(join(root, 'roles/.b.yaml.tmp'), join(root, 'roles/b.yaml'));
    expect(await run(...ROLES())).toEqual([join(root, 'roles/a.yaml')]);
  });

  it('lets go of everything below a folder removed, and stops following it', async () => {
    mkdirSync(join(root, 'roles/more'));
    writeFileSync(join(root, 'roles/more/c.yaml'), 'key: c\n');
    const all = [...ROLES(), join(root, 'roles/more'), join(root, 'roles/more/c.yaml')];
    await run(...all);
    await run(...all);
    expect(watched.folders).toBe(2);
    rmSync(join(root, 'roles/more'), { recursive: true });
    expect(await run(...ROLES())).toEqual([join(root, 'roles/a.yaml'), join(root, 'roles/b.yaml')]);
    expect(watched.folders).toBe(1);
  });

  it('never holds a symbolic link: what it points at changes in a folder nobody follows', async () => {
    writeFileSync(join(outside, 'target.yaml'), 'key: target\n');
    symlinkSync(join(outside, 'target.yaml'), join(root, 'roles/linked.yaml'));
    const all = [...ROLES(), join(root, 'roles/linked.yaml')];
    await run(...all);
    await run(...all);
    expect(await run(...all)).toEqual(ROLES().sort());
  });

  it('notices a link made after the folder was followed', async () => {
    await run(...ROLES());
    writeFileSync(join(outside, 'target.yaml'), 'key: target\n');
    symlinkSync(join(outside, 'target.yaml'), join(root, 'roles/late.yaml'));
    const all = [...ROLES(), join(root, 'roles/late.yaml')];
    await run(...all);
    expect(await run(...all)).toEqual(ROLES().sort());
  });

  it('lets go at the end of a run of what changed while it ran', async () => {
    await run(...ROLES());
    await run(...ROLES());
    await eventsDelivered();
    watched.beforeRun();
    writeFileSync(join(root, 'roles/b.yaml'), 'key: during the run\n');
    await eventsDelivered();
    watched.afterRun(statsOf(...ROLES()));
    expect(await run(...ROLES())).toEqual([join(root, 'roles/a.yaml')]);
  });

  it('holds nothing where events may come after the check that needs them (not Linux)', async () => {
    watched = new WatchedStats(false);
    for (let i = 0; i < 3; i++) expect(await run(...ROLES())).toEqual([]);
    expect(watched.folders).toBe(0);
  });

  it('follows no folder on a file system others write to (NFS, FUSE, 9p…), and says which', async () => {
    watched = new WatchedStats(true, (folder) => (folder === join(root, 'roles') ? 'nfs' : undefined));
    for (let i = 0; i < 3; i++) expect(await run(...ROLES())).toEqual([]);
    expect([watched.folders, watched.limit]).toEqual([0, `${join(root, 'roles')}: on nfs, whose changes from elsewhere send no event here`]);
    expect(sharedFileSystemOf(root), 'a local disk of this machine').toBeUndefined();
  });

  it(`lets go of every stat after ${FORGET_ALL_AFTER} events between two runs (a checkout, or events the kernel dropped)`, async () => {
    await run(...ROLES());
    await run(...ROLES());
    for (let i = 0; i < FORGET_ALL_AFTER; i++) writeFileSync(join(root, `roles/burst-${i % 10}.txt`), String(i));
    expect(await run(...ROLES())).toEqual([]);
  });
});
