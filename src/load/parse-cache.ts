/**
 * The workspace index of `check`: what earlier runs learnt of the files of one working directory, in one
 * place (as git's index, ESLint's cache or TypeScript's `.tsbuildinfo` do). A pre-commit hook or an editor
 * checks mostly unchanged files again and again, and parsing YAML is most of the work.
 *
 * These files per workspace (named by the working directory) under the cache directory:
 *
 * - `<name>.files.<shard>` — per file, by path (in `SHARDS` parts, so that an edit rewrites one small part),
 *   as columns (index-shard.ts): its size, mtime, ctime and inode, the SHA-256 of its bytes, the envelope
 *   that places its object, the schemas it is known to satisfy. A file whose stat is unchanged is not even
 *   opened; a file whose stat changed but whose bytes did not (a `touch`, a checkout) is read but not parsed.
 *   A shard is read only when a path in it is asked for.
 * - `<name>.contents.<shard>` — beside it, what later stages need of each file's document (its text, value,
 *   the place of every node), read only when a stage reads a document of the shard: an object is placed by
 *   its envelope, unopened.
 * - `<name>.results.<key>` — the report of an earlier run, one file a set of targets (so that reusing one
 *   reads no other), with the stat of every input (files and folders) and the hash of every document: when
 *   nothing changed, or a file changed only where no stage looks (comments, blank lines past the last node),
 *   `check` prints the report without loading the workspace (`reusableReport`).
 * - `<name>.memo.<key>` — beside a report, what its run kept for the next run of the same targets when some
 *   input changed (the rules' runs, `earlierRun`): a file of its own, so that reusing a report reads no more.
 *
 * All are named by the build too (package version, the loader's and validators' stamps), so a new
 * package-sdk never trusts an old verdict; another build's files of the workspace go once left alone for a week
 * (looked over when a day has passed since the last report of the same targets, not at every check).
 * Entries of deleted files go away; the index has a size bound.
 * Stats taken less than `RACY_MS` before the run started are not trusted (a file written within the file
 * system's clock tick of being read would look unchanged), as git treats "racily clean" entries.
 */
import { readdirSync, readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import { replaceFileSync } from '../fs/write.js';
import { Refusal } from '../fs/refusal.js';
import { nodeCrypto } from '../fs/node-crypto.js';
import { entryPath, isInside } from '../fs/read.js';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Span } from '../json/document.js';
import type { SourceDocument } from '../json/document.js';
import { lineStartsOf, type LoadResult } from './load-finding.js';
import { childPointer, pointerSegments } from '../json/pointer.js';
import { parseJson } from './json.js';
import { parseYaml } from './yaml.js';
import { isRecord } from '../json/guards.js';
import { TEXT_MARKS } from '../model/text-marks.js';
import { buildStamp } from './build-stamp.js';
import { IndexShard, placesOf, sameStat, type Body, type EnvelopeHead, type Entry, type MadeRecord, type StatKey } from './index-shard.js';

export type { EnvelopeHead, StatKey } from './index-shard.js';

/** Documents with more nodes than this (alias bombs, generated data) are not worth a table. */
const MAX_NODES = 20_000;
/** Files the index remembers at most (a shard holds its share); past it, those this run did not read go first. */
const MAX_FILES = 50_000;
/** Reports of earlier runs kept per workspace (one per set of targets). */
const MAX_RESULTS = 8;
/** The per-file part is written in this many files, so that an edit rewrites a small one. */
const SHARDS = 32;
/** How long the index files of another build of package-sdk are kept for this workspace untouched. */
const OTHER_BUILD_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
/** How often the files of other builds are looked over (a stat each): the first report of a day stored for a key. */
const OTHER_BUILDS_SWEPT_MS = 24 * 60 * 60 * 1000;
/** A stat this close to the start of the run may hide a later write in the same clock tick. */
const RACY_MS = 50;

/** The stat of a path that does not exist (a folder where packages are looked for, say). */
const ABSENT: StatKey = [-2, 0, 0, 0];
/** What stands for a stat too close to the run to trust: equal to no stat (NaN equals nothing). */
const RACY: StatKey = [NaN, NaN, NaN, NaN];

/** The file a document of this run stands for, and its entry in the index (a document of the index knows its own: `knownOf`). */
interface Known {
  path: string;
  shard: IndexShard;
  entry: Entry;
}

/**
 * The files and folders a stored report depends on, packed so that the inputs of 10,000 files read as three
 * values: each path with its stat (unknown when it was racy) and, for a file loaded as a document, the hash of
 * the bytes the report was made from — a file whose stat changed is then compared by what it says (see
 * `sameInEffect`).
 */
interface Inputs {
  /** The paths, joined by NUL (which no path holds). */
  paths: string;
  /** Four numbers a path, its `StatKey`; NaN when the stat was racy. */
  stats: Float64Array;
  /** `HASH_LENGTH` characters a path: the hex SHA-256 of a file loaded as a document, else spaces. */
  hashes: string;
}

const HASH_LENGTH = 64;
const NO_HASH = ' '.repeat(HASH_LENGTH);
const NO_HASH_CODE = NO_HASH.charCodeAt(0);

/**
 * The paths of the stored inputs last asked, split once, with the place of each when asked: a report stored anew
 * over the same inputs shares their text, so a process that checks again (a resident checker) splits it once.
 */
let lastSplit: { text: string; paths: string[]; places: Map<string, number> | undefined } | undefined;

function splitOf(inputs: Inputs): NonNullable<typeof lastSplit> {
  if (lastSplit?.text !== inputs.paths) lastSplit = { text: inputs.paths, paths: inputs.paths.split('\0'), places: undefined };
  return lastSplit;
}

/** The paths of stored inputs (a report compares them, then its memo and the next report read them). */
function pathsOf(inputs: Inputs): string[] {
  return splitOf(inputs).paths;
}

/** The place of each path among `inputs`. */
function inputPlaces(inputs: Inputs): Map<string, number> {
  const split = splitOf(inputs);
  return (split.places ??= placesOf(split.paths));
}

/** The hash of the `i`th path of stored inputs (see `Inputs.hashes`). */
function hashAt(hashes: string, i: number): string {
  return hashes.slice(i * HASH_LENGTH, (i + 1) * HASH_LENGTH);
}

/**
 * `hashes` (see `Inputs.hashes`) with `changed` (a path's place → its hash now) in place of the ones stored: a
 * few paths of ten thousand, mostly, so the text is cut where they are rather than rebuilt path by path.
 */
function withHashes(hashes: string, changed: ReadonlyMap<number, string>): string {
  if (changed.size === 0) return hashes;
  const parts: string[] = [];
  let from = 0;
  for (const at of [...changed.keys()].sort((a, b) => a - b)) {
    parts.push(hashes.slice(from, at * HASH_LENGTH), changed.get(at)!);
    from = (at + 1) * HASH_LENGTH;
  }
  parts.push(hashes.slice(from));
  return parts.join('');
}

interface StoredResult {
  key: string;
  /** The package folders the report's inputs were walked from, joined by NUL. */
  trees?: string;
  inputs: Inputs;
  report: unknown;
  /** Names the memo file written with this report (a memo file of another run is not this report's). */
  memoStamp?: string;
}

/** The memo file of a stored result. */
interface StoredMemo {
  key: string;
  stamp: string;
  memo: unknown;
}

/**
 * How a stored report's inputs were listed: by walking the package trees, or as the report it replaces listed
 * them (every folder lists the entries it listed then), with the stats and hashes of now.
 */
export type InputsListed = 'walked' | 'as stored';

/** What an index saw in one run, for another index of the same process (see `ParseCache.look`). */
export interface IndexLook {
  /** The index's name: the build and the workspace. */
  name: string;
  startedAt: number;
  stats: ReadonlyMap<string, StatKey>;
  result: { key: string; stored: StoredResult | undefined } | undefined;
  /** Filled with every stat the run takes (a resident checker keeps them while no event names their paths). */
  taken?: Map<string, StatKey>;
}

/** What an earlier run of the same targets kept, and whether a document differs from what that run read. */
export interface EarlierRun {
  memo: unknown;
  changedSince(document: SourceDocument): boolean;
}

/** Decodes and parses the bytes of a file as the loader does (given by the caller: the loader sits on this module). */
export type Parse = (bytes: Uint8Array, file: string) => LoadResult;

export class ParseCache implements Contents {
  /** The documents this run parsed and kept, with their entries (a document of the index knows its own: `knownOf`). */
  private readonly known = new WeakMap<SourceDocument, Known>();
  private readonly salt: string;
  /** What names this workspace's files (`<workspace>-<build>.<part>`): another build's go once left alone a while. */
  private readonly workspacePart: string;
  /** The build and the workspace, as the files of this index are named (an `IndexLook` is taken only by an index of the same). */
  private readonly name: string;
  private startedAt = 0;
  /** The per-file part, by shard, read a shard at a time as paths ask for it. */
  private readonly shards = new Map<number, IndexShard>();
  /** Paths loaded in this run (their records are kept first when the index is bounded). */
  private readonly used = new Set<string>();
  /**
   * The stat of each file as this run read it: the stored report names the files by the stats of the bytes
   * it was made from (a later write then shows as a change), and each is stat'ed once.
   */
  private readonly statsSeen = new Map<string, StatKey>();
  /** The stats another index of this process, or a resident checker, took and handed over (`IndexLook.stats`), until a report is stored. */
  private handed: ReadonlyMap<string, StatKey> | undefined = undefined;
  /** Where the stats this run takes are told (`IndexLook.taken`). */
  private statsTaken: Map<string, StatKey> | undefined = undefined;
  /** Shards of the per-file part that this run changed (only those are written again). */
  private readonly changed = new Set<IndexShard>();
  /** Texts and bodies read again from the files (see `fromSource`). */
  private readonly reread = new Map<string, { text: string; body: Body }>();
  /** The files of documents read from the index whose text or content this run read (see `unpacked`). */
  private readonly unpackedFiles = new Set<string>();
  /** The stored result this run read last (asked for its report, then for its memo), or the last run stored. */
  private lastResult: { key: string; stored: StoredResult | undefined } | undefined;
  /** The memo the last run stored, for the next run of its key in this process (see `nextRun`); taken by `earlierRun`. */
  private memoKept: StoredMemo | undefined;

  /** `earlier`: what another index of this process saw of the same workspace a moment ago (see `look`). */
  constructor(
    private readonly dir: string,
    workspace: string = process.cwd(),
    earlier?: IndexLook,
  ) {
    this.salt = buildStamp();
    this.workspacePart = shortHashOf(workspace);
    this.name = indexName(workspace, this.salt);
    this.nextRun(earlier);
  }

  /** Whether this is the index of `workspace` in `dir` for this build (a run of it may follow with `nextRun`). */
  serves(dir: string, workspace: string): boolean {
    return this.dir === dir && this.name === indexName(workspace, this.salt);
  }

  /**
   * Starts another run of this index in the same process (a resident checker's next request, the language
   * server's next check). What the index read or wrote of its own files stays in memory — its shards, the last
   * stored report and memo — for each record says what a file held when it had a stat, which stays true whoever
   * wrote the index's files since (at worst a newer record of another process is written over, and parsed again
   * later). What the last run saw of the workspace goes: every stat is taken anew, but those `earlier` hands over.
   */
  nextRun(earlier?: IndexLook): void {
    const seen = earlier?.name === this.name ? earlier : undefined;
    // Its stats are this run's: taken since the earlier start, which the racy rule then counts from.
    this.startedAt = seen?.startedAt ?? Date.now();
    this.handed = seen?.stats;
    this.statsTaken = earlier?.taken;
    if (seen?.result !== undefined) this.lastResult = seen.result;
    this.used.clear();
    this.statsSeen.clear();
    this.reread.clear();
    this.unpackedFiles.clear();
    for (const shard of this.shards.values()) shard.loaded = 0;
  }

  /**
   * What this index saw in this run (the stats it took, the stored result it read): the small bundle that
   * looks for a stored report hands it to the full check, which then takes no stat and reads no result twice.
   */
  look(): IndexLook {
    const stats = this.handed === undefined ? this.statsSeen : new Map([...this.handed, ...this.statsSeen]);
    return { name: this.name, startedAt: this.startedAt, stats, result: this.lastResult };
  }

  /**
   * The document of the file at `path` when its stat is the one recorded (nothing is read), else undefined:
   * the caller reads the bytes and calls `load`.
   */
  lookup(path: string, file: string): LoadResult | undefined {
    const standing = this.standing(path);
    return standing && { document: this.remember(file, standing), findings: [] };
  }

  /**
   * The text of the file at `path` as it is written, when the index holds it for the file's stat; undefined when
   * it does not, or when decoding the bytes dropped something (a byte-order mark): the text's length in UTF-8 is
   * not the file's size then.
   */
  writtenText(path: string): string | undefined {
    const standing = this.standing(path);
    if (standing === undefined) return undefined;
    const { shard, entry, now } = standing;
    return shard.textLength(entry) === now[0] ? shard.text(entry) : undefined; // else decoding dropped a byte-order mark
  }

  /**
   * The entry of `path` when the index holds the file with the stat it was recorded with (a file recorded
   * without one is not stat'ed), with that stat; else undefined.
   */
  private standing(path: string): (Known & { now: StatKey }) | undefined {
    const shard = this.shardFor(path);
    const entry = shard.entry(path);
    if (entry === undefined) return undefined;
    const now = this.statThisRun(path);
    return now !== undefined && shard.hasStat(entry, now) ? { path, shard, entry, now } : undefined;
  }

  /** The document of `bytes` (the file at `path`) from the index, or from `parse` (remembered when it loads without findings). */
  load(bytes: Uint8Array, file: string, parse: () => LoadResult, path: string = file): LoadResult {
    const hash = hashOf(bytes);
    const stat = this.trusted(this.seen(path, statOf(path)));
    const shard = this.shardFor(path);
    const entry = shard.entry(path);
    if (entry !== undefined && shard.hashIs(entry, hash, 0)) {
      if (stat === undefined || !shard.hasStat(entry, stat)) this.changed.add(shard);
      shard.restat(entry, stat);
      return { document: this.remember(file, { path, shard, entry }), findings: [] };
    }
    const result = parse();
    const body = result.document && result.findings.length === 0 ? bodyOfDocument(result.document) : undefined;
    // A record of other bytes would speak for this file when a later run compares it by its hash: it goes.
    if (entry !== undefined) this.forget(path);
    if (result.document && body) {
      const record: MadeRecord = { stat, hash, head: envelopeHead(body.value), clean: [], content: { text: result.document.text, body } };
      this.keep(path, record);
      this.known.set(result.document, { path, shard, entry: record });
    }
    return result;
  }

  /** Whether `document` is known to satisfy `schema` (validated clean by this build before). */
  isClean(document: SourceDocument, schema: string): boolean {
    const known = this.knownOf(document);
    return known !== undefined && known.shard.isClean(known.entry, schema);
  }

  markClean(document: SourceDocument, schema: string): void {
    const known = this.knownOf(document);
    if (known && known.shard.markClean(known.entry, schema)) this.changed.add(known.shard);
  }

  /** The hash of the bytes `document` was read from, when this index gave it (a file's document, not a buffer's). */
  contentHash(document: SourceDocument): string | undefined {
    const known = this.knownOf(document);
    return known && known.shard.hash(known.entry);
  }

  /**
   * What the loader reads of the object file `document` to place it (`EnvelopeHead`), when the index holds it;
   * undefined when it does not, or when the document is no well-formed envelope.
   */
  envelopeOf(document: SourceDocument): EnvelopeHead | undefined {
    const known = this.knownOf(document);
    return known && known.shard.head(known.entry);
  }

  /**
   * The files (as shown) of the documents this run took from the index and then read the text or content of,
   * in the order first read; the others were placed in the package graph by what the index keeps beside them
   * (`EnvelopeHead`) and answered what was asked of their texts from the marks it keeps, unopened.
   */
  unpacked(): string[] {
    return [...this.unpackedFiles];
  }

  /**
   * Writes the per-file part of the index when it changed (atomically); records of deleted files go, and
   * past `MAX_FILES` so do those this run did not load. An index that cannot be written is only slower.
   */
  flush(): void {
    for (const shard of this.shards.values()) this.prune(shard);
    for (const [number, shard] of this.shards) if (this.changed.has(shard) && this.writeShard(number, shard)) this.changed.delete(shard);
  }

  /**
   * Forgets the files of `shard` this run did not load that are gone, then, past the shard's share of `MAX_FILES`,
   * those this run did not load. A shard every file of which was loaded (a check of its whole package) is not
   * listed at all.
   */
  private prune(shard: IndexShard): void {
    if (shard.loaded < shard.size) for (const path of shard.files()) if (!this.used.has(path) && statOf(path) === undefined) this.forget(path);
    if (shard.size <= MAX_FILES / SHARDS) return;
    for (const path of shard.files()) {
      if (shard.size <= MAX_FILES / SHARDS) break;
      if (!this.used.has(path)) this.forget(path);
    }
  }

  /** Writes shard `number`: its contents first, so that columns are never written before the contents they name. */
  private writeShard(number: number, shard: IndexShard): boolean {
    const { columns, contents } = shard.write();
    return (contents === undefined || writeAtomically(this.pathOf(`contents.${number}`), contents)) && writeAtomically(this.pathOf(`files.${number}`), columns);
  }

  /**
   * The report an earlier run stored under `key` when no input changed since (every file and folder has the
   * stat it had), else undefined.
   */
  reusableReport(key: string, parse: Parse): unknown {
    const stored = this.storedResult(key);
    if (stored === undefined) return undefined;
    const { stats, hashes } = stored.inputs;
    const restated = new Map<number, string>();
    const paths = pathsOf(stored.inputs);
    for (let i = 0; i < paths.length; i++) {
      const now = this.statThisRun(paths[i]!) ?? ABSENT;
      const at = i * 4;
      if (sameStat(now, stats, at)) continue;
      const hash = hashAt(hashes, i);
      const same = hash === NO_HASH ? undefined : this.sameInEffect(paths[i]!, now, hash, parse);
      if (same === undefined) return undefined;
      stats.set(this.trusted(now) ?? RACY, at);
      restated.set(i, same);
    }
    if (restated.size > 0) {
      // The next run compares against what the files hold now, and stats them alone when it can.
      stored.inputs.hashes = withHashes(hashes, restated);
      this.flush();
      writeAtomically(this.storedPath(key), serialize(stored));
    }
    return stored.report;
  }

  /**
   * What the last run of `key` kept besides its report, with a test of whether a document of this run differs
   * from the bytes that run read (a document the index does not hold always does); undefined when none was kept.
   */
  earlierRun(key: string): EarlierRun | undefined {
    const stored = this.storedResult(key);
    if (stored?.memoStamp === undefined) return undefined;
    // The memo kept in memory is taken: the run that reads it changes it in place (`Recall.standing`).
    const kept = this.memoKept?.key === key && this.memoKept.stamp === stored.memoStamp ? this.memoKept : (readSerialized(this.storedPath(key, 'memo')) as StoredMemo | undefined);
    this.memoKept = undefined;
    if (kept?.key !== key || kept.stamp !== stored.memoStamp) return undefined;
    let positions: Map<string, number> | undefined;
    return {
      memo: kept.memo,
      changedSince: (document) => {
        const known = this.knownOf(document);
        if (known === undefined) return true;
        positions ??= inputPlaces(stored.inputs);
        const at = positions.get(known.path);
        return at === undefined || !known.shard.hashIs(known.entry, stored.inputs.hashes, at * HASH_LENGTH);
      },
    };
  }

  /** The stored result of `key`, read once a run. */
  private storedResult(key: string): StoredResult | undefined {
    if (this.lastResult?.key !== key) {
      const stored = readSerialized(this.storedPath(key)) as StoredResult | undefined;
      this.lastResult = { key, stored: stored?.key === key ? stored : undefined };
    }
    return this.lastResult.stored;
  }

  /**
   * The hash of what the file at `path` holds now when the report made from the bytes of hash `hash` holds for
   * it too, else undefined. That is so when the bytes are the same (a `touch`), or when they parse to a document
   * no stage can tell from the recorded one: the same value, floats and suppressions, every node at the same
   * place, and every key and scalar written alike — an edit of comments or blank lines past the last node, say.
   * (Rules read only these of a document; findings point at nodes, keys and characters inside scalars.)
   */
  private sameInEffect(path: string, stat: StatKey, hash: string, parse: Parse): string | undefined {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch {
      return undefined;
    }
    const now = hashOf(bytes);
    if (now === hash) return now;
    const shard = this.shardFor(path);
    const entry = shard.entry(path);
    if (entry === undefined || !shard.hashIs(entry, hash, 0)) return undefined; // the index no longer holds what the report was made from
    const { document, findings } = parse(bytes, path);
    const body = document && findings.length === 0 ? bodyOfDocument(document) : undefined;
    const [textBefore, bodyBefore] = [shard.text(entry), shard.body(entry)];
    if (document === undefined || body === undefined || textBefore === undefined || bodyBefore === undefined || !sameDocument(textBefore, bodyBefore, document.text, body)) return undefined;
    this.keep(path, { stat: this.trusted(stat), hash: now, head: shard.head(entry), clean: shard.cleanSchemas(entry), content: { text: document.text, body } });
    return now;
  }

  /** Keeps `record` as what the index knows of `path` (written at the next flush). */
  private keep(path: string, record: MadeRecord): void {
    const shard = this.shardFor(path);
    shard.put(path, record);
    this.markUsed(path, shard);
    this.changed.add(shard);
  }

  /**
   * Stores `report` under `key`, valid while the files this run loaded and every file and folder under
   * `trees` (package folders) and the folders `listed` (where packages are looked for) keep their stat, with
   * `memo` (what the next run of `key` may reuse of this one when some input changed: see `earlierRun`; with
   * `memoAsBefore`, it holds what the memo stored for `key` holds, which stays). The trees are walked unless the
   * report this one replaces lists their paths still (`inputsAsStored`). Nothing is stored (undefined) when an
   * input has no stat to trust and no hash.
   */
  storeReport(key: string, report: unknown, trees: readonly string[], listed: readonly string[], memo?: unknown, memoAsBefore = false): InputsListed | undefined {
    const restated = this.inputsAsStored(key, trees, listed);
    const packed = restated ?? this.walkedInputs(trees, listed);
    const storedMemo = memoAsBefore ? this.storedResult(key)?.memoStamp : undefined;
    this.statsSeen.clear();
    this.handed = undefined;
    if (packed === undefined) return undefined;
    // The memo first: a report that could not be written leaves a memo no report names. One that holds what the
    // stored one holds (`memoAsBefore`: a value edit, mostly) is not written again; the report names the stored one.
    const memoStamp = storedMemo ?? (memo !== undefined ? nodeCrypto().randomUUID() : undefined);
    const memoOnDisk = storedMemo !== undefined || (memoStamp !== undefined && writeAtomically(this.storedPath(key, 'memo'), serialize({ key, stamp: memoStamp, memo } satisfies StoredMemo)));
    const stored: StoredResult = { key, trees: trees.join('\0'), inputs: packed, report, ...(memoOnDisk ? { memoStamp } : {}) };
    this.lastResult = undefined;
    this.memoKept = undefined;
    // Another build's files are looked over when this key's last report is a day old or more (or there is none).
    const replaced = statSync(this.storedPath(key), { throwIfNoEntry: false });
    const sweep = (replaced?.mtimeMs ?? 0) < Date.now() - OTHER_BUILDS_SWEPT_MS;
    // A report that replaces one adds none: the reports are as many as they were.
    if (!writeAtomically(this.storedPath(key), serialize(stored))) return restated ? 'as stored' : 'walked';
    if (replaced === undefined || sweep) this.dropOldResults(sweep);
    // What the files now hold, kept for the next run of this index in the process (see `nextRun`): it reads neither.
    this.lastResult = { key, stored };
    if (memoOnDisk && memoStamp !== undefined && memo !== undefined) this.memoKept = { key, stamp: memoStamp, memo };
    return restated ? 'as stored' : 'walked';
  }

  /**
   * The inputs of a report made now, walking the trees: every file and folder under them, then the folders
   * `listed` and the files loaded; undefined when one has no stat to trust and no hash (nothing is stored then).
   */
  private walkedInputs(trees: readonly string[], listed: readonly string[]): Inputs | undefined {
    const paths: string[] = [];
    const stats: number[] = [];
    const hashes: string[] = [];
    const seen = new Set<string>();
    const add = (path: string, stat: StatKey | undefined): boolean => {
      const input = this.inputOf(path, stat, this.used.has(path));
      if (input === undefined) return false;
      seen.add(path);
      paths.push(path);
      stats.push(...input[0]);
      hashes.push(input[1]);
      return true;
    };
    // The trees first: most loaded files are in them, and each path is stat'ed once.
    const complete =
      trees.every((tree) => walkTree(tree, add, (path) => this.statThisRun(path))) &&
      listed.every((path) => seen.has(path) || add(path, this.statThisRun(path) ?? ABSENT)) &&
      [...this.used].every((path) => seen.has(path) || add(path, this.statThisRun(path)));
    return complete ? { paths: paths.join('\0'), stats: Float64Array.from(stats), hashes: hashes.join('') } : undefined;
  }

  /**
   * What a stored report records of the input `path` with the stat `stat`: the stat when it can be trusted (else
   * `RACY`), and the hash of a file loaded as a document (`used`; else `NO_HASH`) — a racy stat then only costs a
   * comparison of bytes. Undefined when it has neither: the report cannot be stored.
   */
  private inputOf(path: string, stat: StatKey | undefined, used: boolean): [StatKey, string] | undefined {
    const trusted = this.trusted(stat);
    const hash = used ? this.hashOfFile(path) : undefined;
    return trusted === undefined && hash === undefined ? undefined : [trusted ?? RACY, hash ?? NO_HASH];
  }

  /**
   * The inputs of a report made now, as the stored report of `key` lists them with the stats and hashes of now,
   * when every folder among them lists what it listed (a folder's stat changes as an entry is added, removed or
   * renamed in it: only those are listed again): a value edited in a package of 10,000 files then walks nothing.
   * Undefined when a walk is needed: no stored report of the same trees, a folder that lists other entries, a
   * file that became a folder or the reverse, a listed or loaded path that is not among the stored ones, or a
   * changed path with no stat to trust and no hash.
   */
  private inputsAsStored(key: string, trees: readonly string[], listed: readonly string[]): Inputs | undefined {
    const before = this.storedResult(key);
    if (before === undefined || before.trees !== trees.join('\0')) return undefined;
    const paths = pathsOf(before.inputs);
    const stats = before.inputs.stats.slice();
    const wanted = new Set(listed);
    const hashes = new Map<number, string>();
    let [usedFound, listedFound] = [0, 0];
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i]!;
      const used = this.used.has(path);
      if (used) usedFound++;
      if (wanted.has(path)) listedFound++;
      const now = this.statThisRun(path) ?? ABSENT;
      const hashedBefore = before.inputs.hashes.charCodeAt(i * HASH_LENGTH) !== NO_HASH_CODE;
      if (sameStat(now, stats, i * 4) && used === hashedBefore) continue;
      const [folderNow, folderBefore] = [now[0] === -1, stats[i * 4] === -1];
      if (folderNow !== folderBefore) return undefined;
      // A file renamed over another (as `sed -i` and many editors save) changes its folder, not its listing. (A
      // folder outside the trees is an input by its stat alone: where packages are looked for.)
      if (folderNow && trees.some((tree) => tree === path || isInside(tree, path)) && !sameListing(path, childrenOf(paths, path))) return undefined;
      const input = this.inputOf(path, now, used);
      if (input === undefined) return undefined;
      stats.set(input[0], i * 4);
      hashes.set(i, input[1]);
    }
    if (usedFound !== this.used.size || listedFound !== wanted.size) return undefined;
    return { paths: before.inputs.paths, stats, hashes: withHashes(before.inputs.hashes, hashes) };
  }

  /**
   * The stat of `path` this run took already (a stored report compared it: the documents then are the ones it
   * vouched for), else taken now.
   */
  private statThisRun(path: string): StatKey | undefined {
    return this.statSeen(path) ?? this.seen(path, statOf(path));
  }

  /** The stat of `path` this run took or was handed, if any. */
  private statSeen(path: string): StatKey | undefined {
    return this.statsSeen.get(path) ?? this.handed?.get(path);
  }

  /** Keeps `stat` as the stat of `path` this run read (see `statsSeen`), told to whoever keeps them (`IndexLook.taken`). */
  private seen(path: string, stat: StatKey | undefined): StatKey | undefined {
    if (stat !== undefined) {
      this.statsSeen.set(path, stat);
      this.statsTaken?.set(path, stat);
    }
    return stat;
  }

  /** The shard that holds `path`, read on first use. */
  private shardFor(path: string): IndexShard {
    const number = shardOf(path);
    let shard = this.shards.get(number);
    if (shard === undefined) {
      shard = new IndexShard(readBytes(this.pathOf(`files.${number}`)), () => readBytes(this.pathOf(`contents.${number}`)));
      this.shards.set(number, shard);
    }
    return shard;
  }

  /** The hash of the file at `path` the index holds, if it holds one. */
  private hashOfFile(path: string): string | undefined {
    const shard = this.shardFor(path);
    const entry = shard.entry(path);
    return entry === undefined ? undefined : shard.hash(entry);
  }

  /** See `Contents.textOf`. */
  textOf(document: CachedDocument): string {
    if (!document.shard.isMade(document.entry)) this.unpackedFiles.add(document.file);
    return document.shard.text(document.entry) ?? this.fromSource(document).text;
  }

  /** See `Contents.bodyOf`. */
  bodyOf(document: CachedDocument): Body {
    if (!document.shard.isMade(document.entry)) this.unpackedFiles.add(document.file);
    return document.shard.body(document.entry) ?? this.fromSource(document).body;
  }

  /**
   * The text and body of the file at `path` (shown as `file`) read again, for a document placed from a shard
   * whose contents file is not the one its columns name (a run stopped between writing them, or another run
   * rewrote the shard meanwhile): the file had the recorded stat a moment ago, so it holds what was recorded.
   */
  private fromSource({ path, file, shard, entry }: CachedDocument): { text: string; body: Body } {
    let read = this.reread.get(path);
    if (read === undefined) {
      let bytes: Uint8Array | undefined;
      try {
        bytes = readFileSync(path);
      } catch {
        bytes = undefined;
      }
      // Decoded as the loader decodes (a byte-order mark dropped), parsed as it parses.
      const same = bytes !== undefined && shard.hashIs(entry, hashOf(bytes), 0);
      const document = same ? reparse(new TextDecoder().decode(bytes), file) : undefined;
      const body = document && bodyOfDocument(document);
      if (document === undefined || body === undefined) throw new Refusal('index_changed', `${file} changed while check was reading it`, { hint: 'run check again' });
      this.reread.set(path, (read = { text: document.text, body }));
    }
    return read;
  }

  private forget(path: string): void {
    const shard = this.shardFor(path);
    if (this.used.has(path)) shard.loaded--; // counted low from here: `prune` lists the shard
    shard.forget(path);
    this.changed.add(shard);
  }

  private storedPath(key: string, part: 'results' | 'memo' = 'results'): string {
    return this.pathOf(`${part}.${shortHashOf(key)}`);
  }

  /**
   * Past `MAX_RESULTS` reports of this workspace, those stored longest ago go; with `sweep`, so do the files of
   * another build of the workspace left alone for a week (a stat each: a run a day, not every check, pays it).
   */
  private dropOldResults(sweep: boolean): void {
    const prefix = `${this.name}.results.`;
    let all: string[];
    try {
      all = readdirSync(this.dir);
    } catch {
      return;
    }
    const ageOf = (name: string) => statSync(join(this.dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const results = all.filter((name) => name.startsWith(prefix) && !name.endsWith('.tmp')).map((name) => [join(this.dir, name), ageOf(name)] as const);
    for (const [path] of results.sort((a, b) => b[1] - a[1]).slice(MAX_RESULTS)) {
      rmSync(path, { force: true });
      rmSync(path.replace(prefix, `${this.name}.memo.`), { force: true });
    }
    // An upgrade of package-sdk leaves the index of its predecessor behind, which no later build trusts; a build
    // still in use beside this one (an editor's and a hook's) writes its files again and keeps them.
    if (!sweep) return;
    const otherBuild = (name: string) => name.startsWith(`${this.workspacePart}-`) && !name.startsWith(`${this.name}.`);
    const stale = Date.now() - OTHER_BUILD_KEPT_MS;
    for (const name of all.filter(otherBuild)) if (ageOf(name) < stale) rmSync(join(this.dir, name), { force: true });
  }

  /** `path` (of `shard`) was loaded by this run. */
  private markUsed(path: string, shard: IndexShard): void {
    if (this.used.has(path)) return;
    this.used.add(path);
    shard.loaded++;
  }

  private remember(file: string, { path, shard, entry }: Known): SourceDocument {
    this.markUsed(path, shard);
    return new CachedDocument(file, path, shard, entry, this);
  }

  /** The path and record of a document this index gave, or parsed and kept. */
  private knownOf(document: SourceDocument): Known | undefined {
    // A document of the index knows its own record: 10,000 of them need no entry in a weak map.
    return document instanceof CachedDocument && document.contents === this ? document : this.known.get(document);
  }

  /** `stat` unless it is too close to the start of this run to tell a later write from this state. */
  private trusted(stat: StatKey | undefined): StatKey | undefined {
    return stat !== undefined && Math.max(stat[1], stat[2]) < this.startedAt - RACY_MS ? stat : undefined;
  }

  private pathOf(part: string): string {
    return join(this.dir, `${this.name}.${part}`);
  }
}

/** What a document from the index reads its content from. */
interface Contents {
  textOf(document: CachedDocument): string;
  /** The body of `document`, noted as unpacked when the index held it packed (see `ParseCache.unpacked`). */
  bodyOf(document: CachedDocument): Body;
}

/** A document the index holds: its text and body are read from the index when first asked for. */
class CachedDocument implements SourceDocument, Known {
  private written: string | undefined;
  private nodes: Map<string, number> | undefined;
  private parsed: SourceDocument | undefined;
  private body: Body | undefined;
  private floatSet: ReadonlySet<string> | undefined;
  private suppressionMap: ReadonlyMap<number, readonly string[]> | undefined;

  constructor(
    readonly file: string,
    readonly path: string,
    readonly shard: IndexShard,
    readonly entry: Entry,
    readonly contents: Contents,
  ) {}

  get text(): string {
    return (this.written ??= this.contents.textOf(this));
  }

  get value(): unknown {
    return this.opened().value;
  }

  get floats(): ReadonlySet<string> {
    return (this.floatSet ??= new Set(this.opened().floats));
  }

  get suppressions(): ReadonlyMap<number, readonly string[]> {
    return (this.suppressionMap ??= new Map(this.opened().suppressions));
  }

  /** The record's body, unpacked on the first question about the document's content. */
  private opened(): Body {
    if (this.body === undefined) {
      this.body = this.contents.bodyOf(this);
    }
    return this.body;
  }

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const exact = this.nodeAt(pointer);
    if (exact !== undefined) return this.span(exact, part);
    // Past the existing nodes: the key of the deepest node on the way, as the parser's documents do.
    const segments = pointerSegments(pointer);
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const ancestor = this.nodeAt(segments.slice(0, depth).reduce(childPointer, ''));
      if (ancestor !== undefined) return this.span(ancestor, 'key');
    }
    return { line: 1, column: 1 };
  }

  includes(needle: string): boolean {
    const mark = this.written === undefined ? TEXT_MARKS.indexOf(needle) : -1;
    return mark !== -1 ? this.shard.holdsMark(this.entry, mark) : this.text.includes(needle);
  }

  locateInScalar(pointer: string, offset: number): Span {
    this.parsed ??= reparse(this.text, this.file);
    return this.parsed ? this.parsed.locateInScalar(pointer, offset) : this.locate(pointer);
  }

  /** The index of the node at `pointer` (the table of pointers is built on the first finding). */
  private nodeAt(pointer: string): number | undefined {
    if (this.nodes === undefined) {
      const nodes = new Map<string, number>();
      eachNode(this.value, (nodePointer) => void nodes.set(nodePointer, nodes.size));
      this.nodes = nodes;
    }
    return this.nodes.get(pointer);
  }

  private span(node: number, part: 'key' | 'value'): Span {
    const at = node * 8 + (part === 'key' ? 0 : 4);
    const spans = this.opened().spans;
    return { line: spans[at]!, column: spans[at + 1]!, endLine: spans[at + 2]!, endColumn: spans[at + 3]! };
  }
}

/** Parses the text of an indexed document again, for the rare finding that points inside a string. */
function reparse(text: string, file: string): SourceDocument | undefined {
  return (file.endsWith('.json') ? parseJson(text, file) : parseYaml(text, file)).document;
}

/** What the index keeps of a freshly parsed document besides its text, or undefined when it has too many nodes. */
function bodyOfDocument(document: SourceDocument): Body | undefined {
  const spans: number[] = [];
  const complete = eachNode(document.value, (pointer) => {
    if (spans.length >= MAX_NODES * 8) return false;
    spans.push(...spanNumbers(document.locate(pointer, 'key')), ...spanNumbers(document.locate(pointer, 'value')));
    return true;
  });
  if (!complete) return undefined;
  return {
    value: document.value,
    floats: [...document.floats],
    suppressions: [...document.suppressions].map(([line, codes]) => [line, [...codes]]),
    spans: Int32Array.from(spans),
  };
}

/**
 * What loading reads of `value` to place an object file (`EnvelopeHead`): undefined unless it is a mapping with
 * `apiVersion`, `kind`, `key` and a mapping `spec` — the loader reads the whole value then, to say what is wrong.
 */
function envelopeHead(value: unknown): EnvelopeHead | undefined {
  if (!isRecord(value) || !('apiVersion' in value) || !('kind' in value) || !('key' in value) || !isRecord(value.spec)) return undefined;
  const spec: Record<string, unknown> = {};
  if ('version' in value.spec) spec.version = value.spec.version;
  // The loader reads `data` only as `{$ref: file}`: a schema written inline stays in the body.
  const data = value.spec.data;
  if (isRecord(data) && '$ref' in data) spec.data = data;
  return { apiVersion: value.apiVersion, kind: value.kind, key: value.key, spec };
}

/**
 * Whether a document parsed now (its `text` and `now`) is indistinguishable by any stage from the recorded one
 * (`textBefore` and `before`): see `ParseCache.sameInEffect`.
 */
function sameDocument(textBefore: string, before: Body, text: string, now: Body): boolean {
  return (
    equalInts(before.spans, now.spans) &&
    sameValue(before.value, now.value) &&
    JSON.stringify(before.floats) === JSON.stringify(now.floats) &&
    JSON.stringify(before.suppressions) === JSON.stringify(now.suppressions) &&
    writtenAlike(textBefore, before, text)
  );
}

/** Whether two JSON values are equal, keys in the same order (the order rules visit them in). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [keys, others] = [Object.keys(a), Object.keys(b)];
  return keys.length === others.length && keys.every((key, i) => key === others[i] && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function equalInts(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/** Whether every key, and every value that is not a mapping or a sequence, reads the same in both texts (same spans). */
function writtenAlike(textBefore: string, before: Body, textNow: string): boolean {
  const [linesBefore, linesNow] = [lineStartsOf(textBefore), lineStartsOf(textNow)];
  const slice = (text: string, lines: number[], at: number) => {
    const spans = before.spans;
    return text.slice((lines[spans[at]! - 1] ?? 0) + spans[at + 1]! - 1, (lines[spans[at + 2]! - 1] ?? 0) + spans[at + 3]! - 1);
  };
  let node = 0;
  return eachNode(before.value, (_pointer, value) => {
    const at = node++ * 8;
    const leaf = value === null || typeof value !== 'object';
    return slice(textBefore, linesBefore, at) === slice(textNow, linesNow, at) && (!leaf || slice(textBefore, linesBefore, at + 4) === slice(textNow, linesNow, at + 4));
  });
}

/** Visits `value` and every node inside it, parents first, in a fixed order; false when `visit` stops it. */
function eachNode(value: unknown, visit: (pointer: string, value: unknown) => boolean | void, pointer = ''): boolean {
  if (visit(pointer, value) === false) return false;
  if (Array.isArray(value)) return value.every((item, index) => eachNode(item, visit, childPointer(pointer, index)));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => eachNode(item, visit, childPointer(pointer, key)));
  }
  return true;
}

function spanNumbers(span: Span): number[] {
  return [span.line, span.column, span.endLine ?? span.line, span.endColumn ?? span.column];
}

/** The hex SHA-256 of a file's bytes (the index's own key for them) or of a text (node's hash: a cache key, not an interchanged hash). */
function hashOf(bytes: Uint8Array | string): string {
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}

/** The first 16 hex digits of `hashOf`: the part of an index file's name that stands for a workspace, a build or a report's targets. */
function shortHashOf(text: string): string {
  return hashOf(text).slice(0, 16);
}

function statOf(path: string): StatKey | undefined {
  let info: Stats | undefined;
  try {
    info = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return info && [info.isDirectory() ? -1 : info.size, info.mtimeMs, info.ctimeMs, info.ino];
}

/**
 * The shard that holds the record of `path`. The hash is kept below 2^20 (a prime modulus), so that each step is a
 * small integer: a 32-bit one would be a heap number a character half the time while this runs before V8
 * optimises it (10,000 paths a check).
 */
function shardOf(path: string): number {
  let hash = 0;
  for (let i = 0; i < path.length; i++) hash = (hash * 31 + path.charCodeAt(i)) % 1_048_573;
  return hash % SHARDS;
}


/**
 * Hands every folder and file under `root` to `add` (the root included; `.git` skipped: it changes with
 * every commit and holds no package file); false as soon as `add` refuses one, or when `root` is unreadable.
 */
function walkTree(root: string, add: (path: string, stat: StatKey | undefined) => boolean, stat: (path: string) => StatKey | undefined): boolean {
  if (!add(root, stat(root))) return false;
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.name === '.git') continue;
    const path = entryPath(root, entry.name);
    if (entry.isDirectory() ? !walkTree(path, add, stat) : !add(path, stat(path) ?? ABSENT)) return false;
  }
  return true;
}

/** The stored paths in the folder `dir` among `paths` (listed by `walkTree`): asked of the few folders whose stat changed. */
function childrenOf(paths: readonly string[], dir: string): Set<string> {
  return new Set(paths.filter((path) => path.startsWith(dir) && dirname(path) === dir));
}

/** Whether the folder `dir` holds the entries `stored` (as `walkTree` lists them: `.git` left out), no more, no fewer. */
function sameListing(dir: string, stored: ReadonlySet<string>): boolean {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name !== '.git');
  } catch {
    return false;
  }
  return names.length === stored.size && names.every((name) => stored.has(entryPath(dir, name)));
}

/** The bytes of the file at `path`, or undefined when it cannot be read (absent: the index is made anew). */
function readBytes(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function readSerialized(path: string): unknown {
  try {
    return deserialize(readFileSync(path));
  } catch {
    return undefined; // absent, or written by another build of node: rebuilt
  }
}

/** Writes `bytes` to `path` through a temporary file, so that a reader never sees half an index. */
function writeAtomically(path: string, bytes: Uint8Array): boolean {
  try {
    replaceFileSync(path, bytes);
    return true;
  } catch {
    return false; // a read-only or full cache directory costs speed, never a result
  }
}

/** The name of the index of `workspace` (see `ParseCache.name`) for the build of stamp `salt`. */
export function indexName(workspace: string, salt: string = buildStamp()): string {
  return `${shortHashOf(workspace)}-${shortHashOf(salt)}`;
}

let active: ParseCache | undefined;

/**
 * The index every file load of this process goes through (set once by the `check` command; the library
 * functions parse afresh unless an index is set).
 */
export function useParseCache(cache: ParseCache | undefined): void {
  active = cache;
}

export function activeParseCache(): ParseCache | undefined {
  return active;
}
