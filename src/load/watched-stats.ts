/**
 * The stats a process that checks again and again (the resident checker, the language server) hands each run of the
 * index (`IndexLook.stats`), so that the run stats only what changed: the stats of the last run's inputs, less every path an event of the file system named since. A stat is
 * held only when the folder that holds the path was followed before the run that took it began (a change between
 * the stat and the start of following would go unseen), and never for a symbolic link (a change of what it points
 * at is an event of another folder). Folders are followed one by one (`fs.watch` of a folder: inotify on Linux),
 * as the inputs name them; a folder some event named is followed anew after the next run.
 *
 * Events can be lost where the kernel's queue overflows (inotify holds 16,384 by default); a burst that large
 * shows as at least `FORGET_ALL_AFTER` events between two runs, after which every stat is taken again. A folder on
 * a file system that other machines or systems write to (`SHARED_FILE_SYSTEMS`) is not followed: a change made
 * there sends no event here, so its files are stat'ed at every run.
 */
import { lstatSync, readdirSync, statfsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { IndexLook, StatKey } from './parse-cache.js';

/**
 * Lets the events the kernel queued before a check was asked for be delivered first: the edits a check follows have
 * queued theirs by the time it is asked for, and the events of the file system and the request are read in the same
 * turn of the event loop, in no set order.
 */
export function eventsDelivered(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** Events between two runs past which the checker forgets every stat (a checkout, or a queue that overflowed). */
export const FORGET_ALL_AFTER = 1024;

/**
 * File systems (Linux's `statfs` types) whose files may change with no event on this machine: network and cluster
 * file systems, FUSE (sshfs, a container's or a VM's shared folder), 9p (WSL's Windows drives), VirtualBox's.
 */
export const SHARED_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x73757245, 'coda'],
  [0x7461636f, 'ocfs2'],
  [0x01161970, 'gfs2'],
  [0x0bd00bd0, 'lustre'],
  [0x786f4256, 'vboxsf'],
]);

/** The kind of shared file system `folder` is on, when it is on one (see `SHARED_FILE_SYSTEMS`). */
export function sharedFileSystemOf(folder: string): string | undefined {
  return SHARED_FILE_SYSTEMS.get(statfsSync(folder).type >>> 0);
}

export class WatchedStats {
  /**
   * `trustEvents`: whether the file system's events come before the check that needs them. inotify queues an
   * event as the write happens; FSEvents (macOS) and Windows deliver them later, so there nothing is held.
   * `sharedFileSystem`: the kind of shared file system a folder is on, if it is on one (not followed then).
   */
  constructor(
    private readonly trustEvents: boolean = process.platform === 'linux',
    private readonly sharedFileSystem: (folder: string) => string | undefined = sharedFileSystemOf,
  ) {}

  private readonly watchers = new Map<string, FSWatcher>();
  /** Symbolic links among the entries of followed folders. */
  private readonly links = new Set<string>();
  private readonly known = new Map<string, StatKey>();
  /** Paths whose own stat an event may have changed (the folder an entry changed in). */
  private readonly restat = new Set<string>();
  /** Paths an event named: their stats, and those of everything below them, are forgotten. */
  private readonly changed = new Set<string>();
  private events = 0;
  private followedAtStart: ReadonlySet<string> = new Set();
  /** Folders that could not be followed (not tried again), and the first reason (the limit of watches, say). */
  private readonly refused = new Set<string>();
  private refusal: string | undefined;

  /** Folders followed. */
  get folders(): number {
    return this.watchers.size;
  }

  /** Stats held. */
  get size(): number {
    return this.known.size;
  }

  /** Why some folder could not be followed, if one could not (its paths are then stat'ed at every run). */
  get limit(): string | undefined {
    return this.refusal;
  }

  /**
   * Runs `check` with what a run of the index named `name` is handed (`IndexLook`: the stats held, and where the
   * run tells the stats it takes), once the events queued before it was asked for are delivered; then holds those.
   */
  async aroundRun<T>(name: string, check: (earlier: IndexLook) => Promise<T>): Promise<T> {
    await eventsDelivered();
    const stats = this.beforeRun();
    const taken = new Map<string, StatKey>();
    const result = await check({ name, startedAt: Date.now(), stats, result: undefined, taken });
    this.afterRun(taken);
    return result;
  }

  /** Before a run: the stats no event touched since they were taken. */
  beforeRun(): ReadonlyMap<string, StatKey> {
    this.forgetTouched();
    this.followedAtStart = new Set(this.watchers.keys());
    return this.known;
  }

  /** After a run: holds `stats` (the run's inputs) where they can be trusted, and follows the folders of the others. */
  afterRun(stats: ReadonlyMap<string, StatKey>): void {
    if (!this.trustEvents) return;
    for (const [path, stat] of stats) {
      const folder = stat[0] === -1 ? path : dirname(path);
      if (this.followedAtStart.has(folder)) {
        if (!this.links.has(path)) this.known.set(path, stat);
      } else if (!this.watchers.has(folder) && !this.refused.has(folder)) this.follow(folder);
    }
    // What changed while the run ran is let go before the next (`beforeRun`).
  }

  /** Stops following every folder. */
  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private follow(folder: string): void {
    let watcher: FSWatcher;
    try {
      const shared = this.sharedFileSystem(folder);
      if (shared !== undefined) throw new Error(`on ${shared}, whose changes from elsewhere send no event here`);
      watcher = watch(folder, { persistent: false }, (_event, name) => this.noted(folder, name));
      for (const entry of readdirSync(folder, { withFileTypes: true })) if (entry.isSymbolicLink()) this.links.add(join(folder, entry.name));
    } catch (error) {
      this.refused.add(folder);
      this.refusal ??= `${folder}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      return;
    }
    watcher.on('error', () => this.noted(folder, null)); // the folder went away
    this.watchers.set(folder, watcher);
  }

  private noted(folder: string, name: string | Buffer | null): void {
    this.events++;
    const entry = name?.toString();
    // An event of the folder itself (removed, its mode changed) comes with no name, or with the folder's own
    // (libuv's): the folder is forgotten whole, and followed anew (a child of the same name costs only that).
    if (entry === undefined || entry === basename(folder)) this.changed.add(folder);
    if (entry === undefined) return;
    this.restat.add(folder);
    this.changed.add(join(folder, entry));
  }

  private forgetTouched(): void {
    if (this.events >= FORGET_ALL_AFTER) {
      this.known.clear();
      this.changed.clear();
      this.restat.clear();
      this.events = 0;
      return;
    }
    this.events = 0;
    for (const path of this.restat) this.known.delete(path);
    this.restat.clear();
    for (const path of this.changed) this.forgetChanged(path);
    this.changed.clear();
  }

  /** Forgets `path` and all below it, stops following the folders at or below it, and notes whether it is now a link. */
  private forgetChanged(path: string): void {
    const wasFolder = this.known.get(path)?.[0] === -1 || this.watchers.has(path);
    this.known.delete(path);
    if (wasFolder) {
      const below = path + sep;
      for (const known of this.known.keys()) if (known.startsWith(below)) this.known.delete(known);
      for (const [folder, watcher] of this.watchers) {
        if (folder !== path && !folder.startsWith(below)) continue;
        watcher.close();
        this.watchers.delete(folder);
      }
    }
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) this.links.add(path);
    else this.links.delete(path);
  }
}
