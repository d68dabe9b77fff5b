/**
 * One shard of the workspace index's per-file part (see parse-cache.ts), kept as columns: the paths as one
 * text, their stats in one array of numbers, their hashes in one text, the envelopes of their documents,
 * which schemas each passed as one bit each, and where their texts and packed bodies lie. A check of 10,000
 * unchanged files then reads a few values a shard instead of building ten objects a file that live as long as
 * the run (and that every collection of the young generation copies).
 *
 * The texts and packed bodies are a file of their own (`contents`), read only when a stage reads a document
 * of the shard: a value edited among 10,000 files reads the 18 MB of them for the two or three documents the
 * rules open, not all of them. The columns name the contents they were written with by a stamp the contents
 * file begins with; contents of another stamp (a run that stopped between writing the two, or another run
 * writing the shard at the same moment) are not read.
 *
 * What a run reads anew (a changed file) is held as a record of its own until the shard is written.
 */
import { deserialize, serialize } from 'node:v8';
import { TEXT_MARKS, textMarksOf } from '../model/text-marks.js';
import { nodeCrypto } from '../fs/node-crypto.js';

/** `[size, mtimeMs, ctimeMs, ino]`: what tells a changed file or folder from an unchanged one. */
export type StatKey = [number, number, number, number];

/**
 * What later stages read of a document besides its text, kept packed (`v8.serialize`) in the index until a
 * stage asks for it: a check of 10,000 objects where one changed opens only the documents its rules read.
 */
export interface Body {
  value: unknown;
  floats: string[];
  suppressions: [number, string[]][];
  /**
   * The key span and value span of every node, `[line, column, endLine, endColumn]` each, eight numbers a
   * node, in the order `eachNode` visits the value: the pointers are implied, so an entry costs little more
   * than its source.
   */
  spans: Int32Array;
}

/**
 * What the loader reads of an object file to place it in the package graph (see `envelopeHead` in
 * parse-cache.ts), kept beside the packed body so that placing an unchanged file opens nothing.
 */
export interface EnvelopeHead {
  apiVersion: unknown;
  kind: unknown;
  key: unknown;
  /** Only what loading reads of the spec: `version` (an object's identity) and `data` when it is a `{$ref}`. */
  spec: Record<string, unknown>;
}

/** What this run read of a file: its stat (undefined when racy), hash, envelope, schemas passed, text and body. */
export interface MadeRecord {
  stat: StatKey | undefined;
  hash: string;
  /** Undefined when the document is not a mapping with a mapping `spec` (the loader then reads the value). */
  head: EnvelopeHead | undefined;
  clean: string[];
  /**
   * The text and body as read, until the shard is written; then where its contents hold them and the marks of
   * the text (the editor server keeps one index for its life: 10,000 texts and documents stay bytes).
   */
  content: { text: string; body: Body } | Packed;
}

/** Where a shard's contents hold a file's text and packed body (`[textStart, bodyStart, bodyEnd]`), and the text's marks. */
interface Packed {
  at: [number, number, number];
  marks: number;
}

/** A shard as written: one column a field, one entry a file, in the order of `paths`. */
interface StoredColumns {
  /** Names the contents file written with these columns (it begins with the stamp). */
  stamp: string;
  /** The paths, joined by NUL (which no path holds). */
  paths: string;
  /** Four numbers a file, its `StatKey`; NaN when the stat was racy. */
  stats: Float64Array;
  /** `HASH_LENGTH` characters a file: the hex SHA-256 of its bytes. */
  hashes: string;
  /**
   * The envelopes: four numbers a file, the places in `headValues` of its apiVersion, kind, key and spec
   * (`NO_VALUE` for a spec with nothing the loader reads, every one for a file without an envelope). Read back as
   * one typed array and a few thousand values, where 10,000 envelopes and their specs were 20,000 objects.
   */
  heads: Uint32Array;
  /** The values `heads` points at: each string once, every other value as it is. */
  headValues: unknown[];
  /** The schemas named by the bits of `clean`. */
  cleanNames: string[];
  /** A file's schemas passed, bit `i` for `cleanNames[i]`. */
  clean: Uint32Array;
  /** Three numbers a file: where the contents hold its text (UTF-8) and its packed body, `[textStart, bodyStart, bodyEnd]`. */
  at: Float64Array;
  /** The marks a file's text holds (`textMarksOf`). */
  marks: Uint8Array;
}

/** What writing a shard gives: its columns, and its contents when they changed (else the file written before stands). */
export interface ShardFiles {
  columns: Uint8Array;
  contents: Uint8Array | undefined;
}

const HASH_LENGTH = 64;
/** A file's schemas are bits of one 32-bit number: past 32 names, a verdict is not kept (only a run is slower). */
const MAX_CLEAN_NAMES = 32;
const NO_STAT = [NaN, NaN, NaN, NaN];
/** In `heads`: no value (a file without an envelope, or a spec with nothing the loader reads). */
const NO_VALUE = 0xffffffff;

/** A stamp is a UUID without its dashes, written in ASCII at the head of the contents file. */
const STAMP_LENGTH = 32;

/**
 * A file's entry in a shard: the number of a stored entry (its place in the columns), or the record this run made.
 * A document of the index keeps its entry, so that what it asks of the index costs no look-up by path.
 */
export type Entry = number | MadeRecord;

/** The shard of an index, as read from its files, with this run's records (written by `write`; its entries keep their numbers). */
export class IndexShard {
  private readonly columns: StoredColumns;
  private readonly paths: string[];
  private readonly positions: Map<string, number>;
  /** The texts and packed bodies, read on first use; null when the contents file is not the one the columns name. */
  private contents: Uint8Array | null | undefined;
  /** Files this run read anew (they stand for their stored entries, if any). */
  private readonly made = new Map<string, MadeRecord>();
  /** Stored entries of files gone, or read anew with findings: left out when the shard is written. */
  private readonly gone = new Set<string>();
  /** How many files the shard holds. */
  private count: number;
  /** Whether `write` wrote the shard whole once (see there). */
  private rewritten = false;
  /** How many of its files this run loaded (counted by the index: see `ParseCache.prune`). */
  loaded = 0;

  /** `columns`: the bytes of the columns file; `readContents` reads the contents file (undefined when it cannot). */
  constructor(
    columns: Uint8Array | undefined,
    private readonly readContents: () => Uint8Array | undefined,
  ) {
    [this.columns, this.paths] = readColumns(columns);
    this.positions = placesOf(this.paths);
    this.count = this.paths.length;
  }

  /** The files the shard holds. */
  files(): string[] {
    return [...this.paths.filter((path) => !this.gone.has(path) && !this.made.has(path)), ...this.made.keys()];
  }

  get size(): number {
    return this.count;
  }

  /** The entry of `path`, if the shard holds the file. */
  entry(path: string): Entry | undefined {
    const made = this.made.size === 0 ? undefined : this.made.get(path);
    if (made !== undefined) return made;
    return this.gone.size !== 0 && this.gone.has(path) ? undefined : this.positions.get(path);
  }

  hash(entry: Entry): string {
    return typeof entry === 'number' ? this.columns.hashes.slice(entry * HASH_LENGTH, (entry + 1) * HASH_LENGTH) : entry.hash;
  }

  /** Whether the hash of `entry` is the one `hashes` holds at `offset`. */
  hashIs(entry: Entry, hashes: string, offset: number): boolean {
    return hashes.startsWith(this.hash(entry), offset);
  }

  /** Whether `entry` has a stat recorded and `now` is that stat. */
  hasStat(entry: Entry, now: StatKey): boolean {
    if (typeof entry === 'number') return sameStat(now, this.columns.stats, entry * 4); // NaN (racy) equals nothing
    return entry.stat !== undefined && sameStat(now, entry.stat, 0);
  }

  /** The recorded stat of `entry` is `stat` (undefined: racy) from now on. */
  restat(entry: Entry, stat: StatKey | undefined): void {
    if (typeof entry === 'number') this.columns.stats.set(stat ?? NO_STAT, entry * 4);
    else entry.stat = stat;
  }

  head(entry: Entry): EnvelopeHead | undefined {
    return typeof entry === 'number' ? storedHead(this.columns, entry) : entry.head;
  }

  isClean(entry: Entry, schema: string): boolean {
    if (typeof entry !== 'number') return entry.clean.includes(schema);
    const bit = this.columns.cleanNames.indexOf(schema);
    return bit !== -1 && (this.columns.clean[entry]! & (1 << bit)) !== 0;
  }

  /** The schemas `entry` is known to have passed. */
  cleanSchemas(entry: Entry): string[] {
    return typeof entry === 'number' ? this.columns.cleanNames.filter((schema) => this.isClean(entry, schema)) : entry.clean.slice();
  }

  /** Records that `entry` passed `schema`; false when it was known already. */
  markClean(entry: Entry, schema: string): boolean {
    if (this.isClean(entry, schema)) return false;
    if (typeof entry !== 'number') {
      entry.clean.push(schema);
      return true;
    }
    const bit = cleanBit(this.columns.cleanNames, schema);
    if (bit === -1) return false;
    this.columns.clean[entry]! |= 1 << bit;
    return true;
  }

  /** Whether the text of `entry` holds `TEXT_MARKS[mark]`. */
  holdsMark(entry: Entry, mark: number): boolean {
    if (typeof entry === 'number') return (this.columns.marks[entry]! & (1 << mark)) !== 0;
    const { content } = entry;
    return 'text' in content ? content.text.includes(TEXT_MARKS[mark]!) : (content.marks & (1 << mark)) !== 0;
  }

  /** Whether `entry` was read by this run (not packed in the shard's contents). */
  isMade(entry: Entry): boolean {
    return typeof entry !== 'number';
  }

  /** The text of `entry` as written; undefined when the contents cannot be read (see `storedContents`). */
  text(entry: Entry): string | undefined {
    if (typeof entry !== 'number' && 'text' in entry.content) return entry.content.text;
    const bytes = this.storedContents();
    if (bytes === null) return undefined;
    const [start, end] = this.span(entry, 0);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end);
  }

  /** The length in UTF-8 of the text of `entry`. */
  textLength(entry: Entry): number {
    if (typeof entry !== 'number' && 'text' in entry.content) return Buffer.byteLength(entry.content.text);
    const [start, end] = this.span(entry, 0);
    return end - start;
  }

  /** What the index keeps of the document of `entry` besides its text; undefined when the contents cannot be read. */
  body(entry: Entry): Body | undefined {
    if (typeof entry !== 'number' && 'text' in entry.content) return entry.content.body;
    const bytes = this.storedContents();
    if (bytes === null) return undefined;
    const [start, end] = this.span(entry, 1);
    return deserialize(bytes.subarray(start, end)) as Body;
  }

  /** Keeps `record` as what the shard holds of `path`. */
  put(path: string, record: MadeRecord): void {
    if (this.entry(path) === undefined) this.count++;
    this.made.set(path, record);
  }

  forget(path: string): void {
    if (this.entry(path) === undefined) return;
    this.count--;
    this.made.delete(path);
    if (this.positions.has(path)) this.gone.add(path);
  }

  /**
   * The files of the shard as it stands, the records this run made packed in them. Only the columns change when
   * no file was read anew or forgotten (a stat or a schema verdict recorded); a stored entry whose contents
   * cannot be read is left out. Entries keep their numbers in memory; from then on the shard reads every
   * content from the contents just written, and holds no text or document of its own (see `MadeRecord`).
   */
  write(): ShardFiles {
    // Once rewritten, the columns in memory are no longer the ones on disk: every write is whole.
    if (!this.rewritten && this.made.size === 0 && this.gone.size === 0) return { columns: serialize(this.columns), contents: undefined };
    this.rewritten = true;
    const old = this.columns;
    const oldContents = this.storedContents();
    const live = this.paths.filter((path) => !this.gone.has(path) && !this.made.has(path));
    const kept = oldContents === null ? [] : live;
    const count = kept.length + this.made.size;
    const columns: StoredColumns = {
      stamp: nodeCrypto().randomUUID().replaceAll('-', ''),
      paths: [...kept, ...this.made.keys()].join('\0'),
      stats: new Float64Array(count * 4),
      hashes: '',
      heads: new Uint32Array(count * 4),
      headValues: [],
      cleanNames: [...old.cleanNames],
      clean: new Uint32Array(count),
      at: new Float64Array(count * 3),
      marks: new Uint8Array(count),
    };
    const hashes: string[] = [];
    const parts: Uint8Array[] = [Buffer.from(columns.stamp, 'latin1')];
    const places: [number, number, number][] = [];
    const packHead = headPacker(columns);
    let length = 0;
    const add = (i: number, stat: ArrayLike<number>, hash: string, head: EnvelopeHead | undefined, clean: number, marks: number, text: Uint8Array, body: Uint8Array) => {
      const at: [number, number, number] = [length, length + text.length, length + text.length + body.length];
      columns.marks[i] = marks;
      columns.stats.set(stat, i * 4);
      hashes.push(hash);
      packHead(i, head);
      columns.clean[i] = clean;
      columns.at.set(at, i * 3);
      places.push(at);
      parts.push(text, body);
      length += text.length + body.length;
    };
    kept.forEach((path, i) => {
      const at = this.positions.get(path)!;
      add(i, old.stats.subarray(at * 4, at * 4 + 4), this.hash(at), storedHead(old, at), old.clean[at]!, old.marks[at]!, ...this.parts(at, oldContents!));
    });
    let i = kept.length;
    for (const made of this.made.values()) {
      const bits = made.clean.reduce((sum, schema) => {
        const bit = cleanBit(columns.cleanNames, schema);
        return bit === -1 ? sum : sum | (1 << bit);
      }, 0);
      const [text, body, marks] = this.madeContent(made);
      add(i++, made.stat ?? NO_STAT, made.hash, made.head, bits, marks, text, body);
    }
    columns.hashes = hashes.join('');
    const contents = Buffer.concat(parts, STAMP_LENGTH + length);
    // Every entry now reads from what was written (unless some stored one could not be read: those keep their place).
    if (kept.length === live.length) this.readFrom(contents.subarray(STAMP_LENGTH), kept, places, columns.marks);
    return { columns: serialize(columns), contents };
  }

  /** The text and packed body of a record this run made, as bytes, and the marks of its text. */
  private madeContent(made: MadeRecord): [Uint8Array, Uint8Array, number] {
    const { content } = made;
    if ('text' in content) return [Buffer.from(content.text), serialize(content.body), textMarksOf(content.text)];
    return [...this.parts(made, this.contents!), content.marks];
  }

  /** The bytes of the text and of the packed body of `entry` (a stored entry, or a record packed) in `contents`. */
  private parts(entry: Entry, contents: Uint8Array): [Uint8Array, Uint8Array] {
    return [contents.subarray(...this.span(entry, 0)), contents.subarray(...this.span(entry, 1))];
  }

  /**
   * Points the stored entries `kept` and the records this run made at `contents` (`places`, in the order they were
   * written), and drops the records' texts and documents.
   */
  private readFrom(contents: Uint8Array, kept: readonly string[], places: readonly [number, number, number][], marks: Uint8Array): void {
    kept.forEach((path, i) => this.columns.at.set(places[i]!, this.positions.get(path)! * 3));
    let i = kept.length;
    for (const made of this.made.values()) {
      made.content = { at: places[i]!, marks: marks[i]! };
      i++;
    }
    this.contents = contents;
  }

  /** The texts and packed bodies of the stored entries, read once; null when the contents file is not the columns' own. */
  private storedContents(): Uint8Array | null {
    if (this.contents === undefined) {
      const bytes = this.paths.length === 0 ? undefined : this.readContents();
      const stamped = bytes !== undefined && bytes.length >= STAMP_LENGTH && Buffer.from(bytes.buffer, bytes.byteOffset, STAMP_LENGTH).toString('latin1') === this.columns.stamp;
      this.contents = stamped ? bytes.subarray(STAMP_LENGTH) : null;
    }
    return this.contents;
  }

  /** Where the contents hold the text (`part` 0) or the packed body (1) of `entry` (a stored entry, or a record packed). */
  private span(entry: Entry, part: 0 | 1): [number, number] {
    if (typeof entry !== 'number') {
      const { at } = entry.content as Packed;
      return [at[part], at[part + 1]!];
    }
    const at = entry * 3 + part;
    return [this.columns.at[at]!, this.columns.at[at + 1]!];
  }
}

/**
 * The bit of `schema` among the schema verdicts `names` (added when new); -1 past `MAX_CLEAN_NAMES` names, when the
 * verdict is not kept (only a later run is slower).
 */
function cleanBit(names: string[], schema: string): number {
  if (!names.includes(schema) && names.length < MAX_CLEAN_NAMES) names.push(schema);
  return names.indexOf(schema);
}

/** Whether `a` is the stat at `at` in `b` (a stat, or packed stats). */
export function sameStat(a: StatKey, b: ArrayLike<number>, at = 0): boolean {
  return a[0] === b[at] && a[1] === b[at + 1] && a[2] === b[at + 2] && a[3] === b[at + 3];
}

/** The columns in `bytes` and their paths when they read as a shard, else those of an empty shard (written by another build of node, say). */
function readColumns(bytes: Uint8Array | undefined): [StoredColumns, string[]] {
  const empty: StoredColumns = { stamp: '', paths: '', stats: new Float64Array(), hashes: '', heads: new Uint32Array(), headValues: [], cleanNames: [], clean: new Uint32Array(), at: new Float64Array(), marks: new Uint8Array() };
  if (bytes === undefined) return [empty, []];
  let stored: Partial<StoredColumns>;
  try {
    stored = deserialize(bytes) as Partial<StoredColumns>;
  } catch {
    return [empty, []];
  }
  const paths = typeof stored.paths === 'string' && stored.paths !== '' ? stored.paths.split('\0') : [];
  const count = typeof stored.paths === 'string' ? paths.length : -1;
  const whole =
    count >= 0 && typeof stored.stamp === 'string' && stored.stamp.length === STAMP_LENGTH && stored.stats instanceof Float64Array &&
    stored.stats.length === count * 4 && typeof stored.hashes === 'string' && stored.hashes.length === count * HASH_LENGTH &&
    stored.heads instanceof Uint32Array && stored.heads.length === count * 4 && Array.isArray(stored.headValues) && Array.isArray(stored.cleanNames) && stored.clean instanceof Uint32Array &&
    stored.clean.length === count && stored.at instanceof Float64Array && stored.at.length === count * 3 && stored.marks instanceof Uint8Array &&
    stored.marks.length === count;
  return whole ? [stored as StoredColumns, paths] : [empty, []];
}

/**
 * The envelope of the `entry`th file of `columns`, if it has one (see `StoredColumns.heads`); none either when a
 * place is past the values (the loader then reads the document's value).
 */
function storedHead({ heads, headValues }: StoredColumns, entry: number): EnvelopeHead | undefined {
  const at = entry * 4;
  const apiVersion = heads[at]!;
  const kind = heads[at + 1]!;
  const key = heads[at + 2]!;
  const spec = heads[at + 3]!;
  // NO_VALUE is past any values: a file without an envelope has none.
  if (apiVersion >= headValues.length || kind >= headValues.length || key >= headValues.length || (spec !== NO_VALUE && spec >= headValues.length)) return undefined;
  return { apiVersion: headValues[apiVersion], kind: headValues[kind], key: headValues[key], spec: spec === NO_VALUE ? {} : (headValues[spec] as Record<string, unknown>) };
}

/** Writes the envelope of the `i`th file into the columns being made (see `StoredColumns.heads`). */
function headPacker(columns: StoredColumns): (i: number, head: EnvelopeHead | undefined) => void {
  const strings = new Map<string, number>();
  const place = (value: unknown): number => {
    let at = typeof value === 'string' ? strings.get(value) : undefined;
    if (at === undefined) {
      at = columns.headValues.push(value) - 1;
      if (typeof value === 'string') strings.set(value, at);
    }
    return at;
  };
  return (i, head) => {
    const fields = head === undefined ? [NO_VALUE, NO_VALUE, NO_VALUE, NO_VALUE] : [place(head.apiVersion), place(head.kind), place(head.key), Object.keys(head.spec).length === 0 ? NO_VALUE : place(head.spec)];
    columns.heads.set(fields, i * 4);
  };
}

/**
 * Each of `paths` with its place among them. A loop rather than `new Map(paths.map(…))`: the pairs cost as much as
 * the map for thousands of paths, in code V8 has not optimised yet.
 */
export function placesOf(paths: readonly string[]): Map<string, number> {
  const places = new Map<string, number>();
  for (let i = 0; i < paths.length; i++) places.set(paths[i]!, i);
  return places;
}
