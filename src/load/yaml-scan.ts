/**
 * A scanner for the common shape of package YAML: block mappings and sequences, flow collections, plain
 * and quoted scalars on one line, literal and folded block scalars, comments. It builds the JSON value straight from the text — no
 * token, syntax tree or node object per scalar — because a package of thousands of objects spends most of
 * its cold check parsing YAML and collecting the garbage of the trees it built.
 *
 * It decides nothing about a file outside that shape: anything else (anchors, aliases, tags, multi-line
 * plain or quoted scalars, escapes, explicit keys, directives, document markers, tabs, an empty value, a
 * duplicate key, any syntax error) makes it give up, and the full parser in `yaml.ts` reads the file, so
 * every finding of bad YAML comes from one place. What it accepts it reads the way the full parser does,
 * node ranges included: a test compares both on every YAML file of the repository.
 */
import { childPointer } from '../json/pointer.js';
import type { ScalarStyle } from './scalar-offsets.js';
import { keyText, resolvePlain, setKey } from './yaml-scalars.js';

/** Where a node is written: `[start, end)` of its value, of its key when it is a mapping's value. */
export interface ScannedNode {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
  /** The style of a scalar: what `mapScalar` needs to place characters inside it. */
  style?: ScalarStyle;
  /** The text of a scalar, before it is resolved to a number, a boolean or null. */
  text?: string;
}

/** What the scanner read: the value, its integral floats and the ranges of quoted scalars. */
export interface Scanned {
  value: unknown;
  floats: Set<string>;
  textRanges: [number, number][];
  /** Every node by its JSON Pointer, when asked for (locating a finding needs it; loading does not). */
  nodes?: Map<string, ScannedNode>;
}

/** The scanner gives up: the file is not of the common shape. */
class OutsideShape extends Error {}
/** One instance, thrown each time: a lookahead that fails is common, and a stack trace is not needed. */
const OUTSIDE_SHAPE = new OutsideShape('outside the common shape of package YAML');

/** Characters that cannot be scanned here (C0/C1 controls but the newline, tabs, BOM, line separators). */
const UNSCANNABLE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
/** The longest implicit key YAML allows. */
const KEY_LIMIT = 1024;
/** Nesting kept well below what exhausts the stack; deeper files go to the full parser. */
const DEPTH_LIMIT = 200;

const NEWLINE = 10;
const SPACE = 32;
const HASH = 35;
const COLON = 58;
const DASH = 45;
const COMMA = 44;

/**
 * The value of `text` with the same floats and quoted-scalar ranges as the full parser would give, or
 * undefined when the text is outside the common shape. `locate: true` also records every node's range.
 */
export function scanYaml(text: string, locate = false): Scanned | undefined {
  if (UNSCANNABLE.test(text)) return undefined;
  const scanner = new Scanner(text, locate);
  try {
    return scanner.document();
  } catch (error) {
    if (error === OUTSIDE_SHAPE) return undefined;
    throw error;
  }
}

/**
 * The lines of a folded scalar joined: the break between two lines of text is a space, and each empty line
 * a break; around a more-indented line (one starting with a space) every break is kept.
 */
function fold(lines: readonly string[]): string {
  let value = '';
  let empty = 0;
  let previous: string | undefined;
  for (const line of lines) {
    if (line === '') {
      empty++;
      continue;
    }
    if (previous === undefined) value += '\n'.repeat(empty);
    else if (previous.charCodeAt(0) !== SPACE && line.charCodeAt(0) !== SPACE) value += empty === 0 ? ' ' : '\n'.repeat(empty);
    else value += '\n'.repeat(empty + 1);
    value += line;
    previous = line;
    empty = 0;
  }
  return value;
}

function isFlowIndicator(c: number): boolean {
  return c === COMMA || c === 91 || c === 93 || c === 123 || c === 125; // , [ ] { }
}

/** Characters that start something other than a plain scalar (`-` is handled apart). */
function isIndicator(c: number): boolean {
  // ? : , [ ] { } # & * ! | > ' " % @ `
  return c === 63 || c === COLON || isFlowIndicator(c) || c === HASH || c === 38 || c === 42 || c === 33 || c === 124 ||
    c === 62 || c === 39 || c === 34 || c === 37 || c === 64 || c === 96;
}

class Scanner {
  private pos = 0;
  /** The column of the block collection a flow collection is written in: its lines must stand further right. */
  private blockIndent = 0;
  private depth = 0;
  /** The indentation of the content line a block collection stopped at, for the collection around it. */
  private pending: number | undefined;
  /** Where the line of the last node read ends (after its newline): a block collection ends there. */
  private lastLineEnd = 0;
  /** The deepest indentation of the comment lines before the current content line, -1 when there are none. */
  private commentIndent = -1;
  private readonly path: string[] = [];
  private readonly floats = new Set<string>();
  private readonly textRanges: [number, number][] = [];
  private readonly nodes?: Map<string, ScannedNode>;

  constructor(
    private readonly text: string,
    locate: boolean,
  ) {
    if (locate) this.nodes = new Map();
  }

  document(): Scanned {
    const indent = this.contentLine();
    const start = this.pos;
    if (indent !== 0 || this.atSequenceEntry() || !this.atMappingKey()) this.giveUp();
    const value = this.blockMapping(0);
    if (this.pos < this.text.length) this.giveUp();
    this.record(start, this.lastLineEnd);
    const scanned: Scanned = { value, floats: this.floats, textRanges: this.textRanges };
    if (this.nodes) scanned.nodes = this.nodes;
    return scanned;
  }

  private giveUp(): never {
    throw OUTSIDE_SHAPE;
  }

  private code(at = this.pos): number {
    return at < this.text.length ? this.text.charCodeAt(at) : NEWLINE;
  }

  private get pointer(): string {
    let pointer = '';
    for (const segment of this.path) pointer = childPointer(pointer, segment);
    return pointer;
  }

  private record(start: number, end: number, key?: [number, number], style?: ScalarStyle, text?: string): void {
    if (!this.nodes) return;
    const node: ScannedNode = { start, end };
    if (key) [node.keyStart, node.keyEnd] = key;
    if (style) [node.style, node.text] = [style, text];
    this.nodes.set(this.pointer, node);
  }

  /**
   * Skips the rest of the line (spaces, a comment), blank and comment lines; stops at the first character of
   * the next content line and returns its indentation, or -1 at the end of the text.
   */
  private nextContentLine(): number {
    if (this.pending !== undefined) {
      const indent = this.pending;
      this.pending = undefined;
      return indent;
    }
    this.skipSpaces();
    if (this.code() === HASH) {
      if (this.text.charCodeAt(this.pos - 1) !== SPACE) this.giveUp(); // a comment must follow a space
      this.skipToLineEnd();
    }
    if (this.pos >= this.text.length) return -1;
    if (this.code() !== NEWLINE) this.giveUp(); // content after a node on its line
    this.pos++;
    return this.contentLine();
  }

  /** From the start of a line, skips blank and comment lines; the indentation of the next content line, or -1. */
  private contentLine(): number {
    this.commentIndent = -1;
    for (;;) {
      const lineStart = this.pos;
      this.skipSpaces();
      if (this.pos >= this.text.length) return -1;
      const c = this.code();
      if (c === HASH) {
        this.commentIndent = Math.max(this.commentIndent, this.pos - lineStart);
        this.skipToLineEnd();
      } else if (c !== NEWLINE) {
        if (this.startsMarker(lineStart)) this.giveUp();
        return this.pos - lineStart;
      }
      if (this.pos >= this.text.length) return -1;
      this.pos++;
    }
  }

  /** `---`, `...` or a directive at the start of a line: documents and directives are the full parser's. */
  private startsMarker(lineStart: number): boolean {
    if (this.pos !== lineStart) return false;
    const three = this.text.slice(lineStart, lineStart + 3);
    return three === '---' || three === '...' || this.text.charCodeAt(lineStart) === 37;
  }

  private skipSpaces(): void {
    while (this.text.charCodeAt(this.pos) === SPACE) this.pos++;
  }

  private skipToLineEnd(): void {
    const end = this.text.indexOf('\n', this.pos);
    this.pos = end === -1 ? this.text.length : end;
  }

  /** The end of the line the scanner is on, after its newline. */
  private lineEndAfter(at: number): number {
    const end = this.text.indexOf('\n', at);
    return end === -1 ? this.text.length : end + 1;
  }

  private atSequenceEntry(): boolean {
    const next = this.code(this.pos + 1);
    return this.code() === DASH && (next === SPACE || next === NEWLINE);
  }

  /** Whether a scalar followed by `:` starts here (looked ahead without building anything). */
  private atMappingKey(): boolean {
    const start = this.pos;
    const c = this.code();
    if (c !== 39 && c !== 34 && (isIndicator(c) || c === SPACE || c === NEWLINE)) return false; // no scalar starts here
    try {
      this.scalarText(false);
      return this.code() === COLON && this.isSeparated(this.pos + 1, false);
    } catch (error) {
      if (error === OUTSIDE_SHAPE) return false;
      throw error;
    } finally {
      this.pos = start;
    }
  }

  /** Whether the character at `at` ends a `:` indicator or a plain scalar before it. */
  private isSeparated(at: number, flow: boolean): boolean {
    const c = this.code(at);
    return c === SPACE || c === NEWLINE || (flow && isFlowIndicator(c));
  }

  private enter(): void {
    if (++this.depth > DEPTH_LIMIT) this.giveUp();
  }

  /** A block mapping whose keys stand at column `indent`; the scanner is at its first key. */
  private blockMapping(indent: number): Record<string, unknown> {
    this.enter();
    const result: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (;;) {
      const keyStart = this.pos;
      const key = this.key();
      const keyEnd = this.pos;
      this.pos++; // the ':'
      if (seen.has(key)) this.giveUp();
      seen.add(key);
      this.path.push(key);
      setKey(result, key, this.blockValue(indent, [keyStart, keyEnd]));
      this.path.pop();
      const next = this.nextContentLine();
      if (next < indent) {
        this.endCollection(indent, next);
        break;
      }
      if (next > indent || this.atSequenceEntry()) this.giveUp();
    }
    this.depth--;
    return result;
  }

  /** A mapping key on one line: a plain or single-quoted scalar followed by `:`. */
  private key(): string {
    const start = this.pos;
    const { text, style } = this.scalarText(false);
    if (this.pos - start > KEY_LIMIT || this.code() !== COLON || !this.isSeparated(this.pos + 1, false)) this.giveUp();
    return style === 'PLAIN' ? this.plainKey(text) : text;
  }

  /**
   * The value after `key:` (or after `- `) of a block collection at column `indent`; `key` is the range
   * of the mapping key, when there is one. Returns the value and where its last line ends.
   */
  private blockValue(indent: number, key?: [number, number]): unknown {
    this.skipSpaces();
    const c = this.code();
    if (c === NEWLINE || c === HASH) {
      const next = this.nextContentLine();
      if (next < 0) this.giveUp(); // an empty value
      const sameIndentSequence = key !== undefined && next === indent && this.atSequenceEntry();
      if (next <= indent && !sameIndentSequence) this.giveUp();
      return this.blockNode(next, key);
    }
    return this.inlineNode(indent, key);
  }

  /** A block collection starting on its own line at column `indent`. */
  private blockNode(indent: number, key?: [number, number]): unknown {
    const start = this.pos;
    let value: unknown;
    if (this.atSequenceEntry()) value = this.blockSequence(indent);
    else if (this.atMappingKey()) value = this.blockMapping(indent);
    else this.giveUp(); // a scalar on the line after its key
    this.record(start, this.lastLineEnd, key);
    return value;
  }

  /** A node that starts on the line of its key or its `- `. */
  private inlineNode(indent: number, key?: [number, number]): unknown {
    const c = this.code();
    if (c === DASH && this.atSequenceEntry()) this.giveUp(); // `key: - x`, or `- - x`
    if (c === 124 || c === 62) return this.blockScalar(indent, key); // | >
    this.blockIndent = indent;
    let value: unknown;
    if (c === 91 || c === 123) value = this.flowCollection(key);
    else {
      const start = this.pos;
      const { text, style } = this.scalarText(false);
      // `- key: value`: a mapping whose keys stand where this one does
      if (key === undefined && this.code() === COLON && this.isSeparated(this.pos + 1, false)) return this.compactMapping(start);
      value = this.resolved(start, text, style, key);
    }
    this.skipSpaces();
    if (this.code() === COLON) this.giveUp(); // a key where a value belongs
    this.lastLineEnd = this.lineEndAfter(this.pos);
    return value;
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar of a block collection at column `indent`, clipped or
   * stripped (`-`). A kept end (`+`), an indentation indicator and spaces past the indentation on an empty
   * line are the full parser's.
   */
  private blockScalar(indent: number, key?: [number, number]): string {
    const text = this.text;
    const start = this.pos;
    const style: ScalarStyle = this.code() === 124 ? 'BLOCK_LITERAL' : 'BLOCK_FOLDED';
    this.pos++;
    const strip = this.code() === DASH;
    if (strip) this.pos++;
    this.skipSpaces();
    if (this.code() === HASH && text.charCodeAt(this.pos - 1) === SPACE) this.skipToLineEnd();
    if (this.code() !== NEWLINE || this.pos >= text.length) this.giveUp();
    const lines: string[] = [];
    let contentIndent = -1;
    let end = this.pos + 1;
    let at = this.pos + 1;
    while (at < text.length) {
      const newline = text.indexOf('\n', at);
      const lineEnd = newline === -1 ? text.length : newline;
      let spaces = at;
      while (spaces < lineEnd && text.charCodeAt(spaces) === SPACE) spaces++;
      const column = spaces - at;
      if (spaces === lineEnd) {
        if (contentIndent !== -1 ? column > contentIndent : column > indent) this.giveUp(); // spaces that are content
        lines.push('');
      } else {
        if (contentIndent === -1) contentIndent = column;
        if (column < contentIndent) {
          if (column > indent) this.giveUp(); // less indented than the scalar, more than its collection
          break;
        }
        const line = text.slice(at + contentIndent, lineEnd);
        lines.push(line);
        end = newline === -1 ? text.length : newline + 1;
      }
      at = lineEnd + 1;
    }
    if (contentIndent <= indent) this.giveUp(); // no content: an empty scalar
    while (lines.at(-1) === '') lines.pop();
    const body = style === 'BLOCK_LITERAL' ? lines.join('\n') : fold(lines);
    const value = strip ? body : `${body}\n`;
    this.pos = text.charCodeAt(end - 1) === NEWLINE ? end - 1 : end;
    this.lastLineEnd = end;
    this.textRanges.push([start, end]);
    this.record(start, end, key, style, value);
    return value;
  }

  /** The mapping that starts at `start`, on the line of its `- `. */
  private compactMapping(start: number): Record<string, unknown> {
    this.pos = start;
    const value = this.blockMapping(start - this.text.lastIndexOf('\n', start - 1) - 1);
    this.record(start, this.lastLineEnd);
    return value;
  }

  /**
   * A block collection at column `indent` ends before a line at column `next`. Comment lines as far right
   * as the entries of a nested collection (further right for the document's own mapping, whose comments at
   * column 0 are the document's), between its last entry and that line, belong to it in the full parser's
   * tree and stretch its range in a way left to that parser.
   */
  private endCollection(indent: number, next: number): void {
    if (this.commentIndent > indent || (this.commentIndent === indent && this.path.length > 0)) this.giveUp();
    this.pending = next;
  }

  /** A block sequence whose `- ` stand at column `indent`; the scanner is at the first `-`. */
  private blockSequence(indent: number): unknown[] {
    this.enter();
    const items: unknown[] = [];
    for (;;) {
      this.pos++; // the '-'
      this.path.push(String(items.length));
      items.push(this.blockValue(indent));
      this.path.pop();
      const next = this.nextContentLine();
      if (next < indent || (next === indent && !this.atSequenceEntry())) {
        this.endCollection(indent, next);
        break;
      }
      if (next > indent) this.giveUp();
    }
    this.depth--;
    return items;
  }

  /** `[…]` or `{…}`, possibly over several lines. */
  private flowCollection(key?: [number, number]): unknown {
    this.enter();
    const start = this.pos;
    const open = this.code();
    const close = open === 91 ? 93 : 125;
    this.pos++;
    const sequence: unknown[] = [];
    const mapping: Record<string, unknown> = {};
    const seen = new Set<string>();
    this.skipFlowSpace();
    while (this.code() !== close) {
      if (open === 91) {
        this.path.push(String(sequence.length));
        sequence.push(this.flowNode());
      } else {
        const keyStart = this.pos;
        const { text, style } = this.scalarText(true);
        const keyEnd = this.pos;
        if (keyEnd - keyStart > KEY_LIMIT || this.code() !== COLON || !this.isSeparated(this.pos + 1, true)) this.giveUp();
        const name = style === 'PLAIN' ? this.plainKey(text) : text;
        if (seen.has(name)) this.giveUp();
        seen.add(name);
        this.pos++;
        this.skipFlowSpace();
        if (this.code() === COMMA || this.code() === close) this.giveUp(); // an empty value
        this.path.push(name);
        setKey(mapping, name, this.flowNode([keyStart, keyEnd]));
      }
      this.path.pop();
      this.skipFlowSpace();
      if (this.code() === COMMA) {
        this.pos++;
        this.skipFlowSpace();
        if (this.code() === close) this.giveUp(); // a trailing comma
      } else if (this.code() !== close) this.giveUp();
    }
    this.pos++;
    this.depth--;
    this.record(start, this.pos, key);
    return open === 91 ? sequence : mapping;
  }

  private plainKey(text: string): string {
    if (text === '<<') this.giveUp(); // a merge key
    const resolved = resolvePlain(text);
    if ('error' in resolved) this.giveUp();
    return keyText(resolved.value, resolved.float);
  }

  private flowNode(key?: [number, number]): unknown {
    const c = this.code();
    if (c === 91 || c === 123) return this.flowCollection(key);
    const value = this.scalar(true, key);
    this.skipFlowSpace();
    if (this.code() === COLON) this.giveUp(); // `[a: b]`, a pair in a sequence
    return value;
  }

  /** Spaces, comments and line breaks inside a flow collection; its lines stand right of its block collection. */
  private skipFlowSpace(): void {
    const text = this.text;
    for (;;) {
      this.skipSpaces();
      const c = this.code();
      if (c === HASH) {
        const before = text.charCodeAt(this.pos - 1);
        if (before !== SPACE && before !== NEWLINE) this.giveUp();
        this.skipToLineEnd();
        continue;
      }
      if (c !== NEWLINE) return;
      if (this.pos >= text.length) this.giveUp(); // the text ends inside the collection
      const lineStart = ++this.pos;
      this.skipSpaces();
      const next = this.code();
      if (next === NEWLINE || next === HASH) continue;
      if (this.pos - lineStart <= this.blockIndent || this.startsMarker(lineStart)) this.giveUp();
    }
  }

  /** A scalar value, its floats and ranges recorded. */
  private scalar(flow: boolean, key?: [number, number]): unknown {
    const start = this.pos;
    const { text, style } = this.scalarText(flow);
    return this.resolved(start, text, style, key);
  }

  /** The value of the scalar just read from `start`: its text, or what a plain scalar resolves to. */
  private resolved(start: number, text: string, style: ScalarStyle, key?: [number, number]): unknown {
    this.record(start, this.pos, key, style, text);
    if (style !== 'PLAIN') {
      this.textRanges.push([start, this.pos]);
      return text;
    }
    const resolved = resolvePlain(text);
    if ('error' in resolved) this.giveUp();
    if (resolved.float && Number.isInteger(resolved.value)) this.floats.add(this.pointer);
    return resolved.value;
  }

  /** The text of a plain or quoted scalar on one line; the scanner stops right after it. */
  private scalarText(flow: boolean): { text: string; style: ScalarStyle } {
    const c = this.code();
    if (c === 39) return { text: this.singleQuoted(), style: 'QUOTE_SINGLE' };
    if (c === 34) return { text: this.doubleQuoted(), style: 'QUOTE_DOUBLE' };
    return { text: this.plain(flow), style: 'PLAIN' };
  }

  private singleQuoted(): string {
    const text = this.text;
    let at = this.pos + 1;
    let value = '';
    for (;;) {
      const close = text.indexOf("'", at);
      const newline = text.indexOf('\n', at);
      if (close === -1 || (newline !== -1 && newline < close)) this.giveUp(); // unclosed, or over several lines
      value += text.slice(at, close);
      if (text.charCodeAt(close + 1) !== 39) {
        this.pos = close + 1;
        return value;
      }
      value += "'";
      at = close + 2;
    }
  }

  private doubleQuoted(): string {
    const text = this.text;
    const close = text.indexOf('"', this.pos + 1);
    const newline = text.indexOf('\n', this.pos + 1);
    if (close === -1 || (newline !== -1 && newline < close)) this.giveUp();
    const value = text.slice(this.pos + 1, close);
    if (value.includes('\\')) this.giveUp(); // escapes are the full parser's
    this.pos = close + 1;
    return value;
  }

  /** A plain scalar on one line: up to `: `, ` #`, the line's end, or (in flow) a flow indicator. */
  private plain(flow: boolean): string {
    const text = this.text;
    const start = this.pos;
    const first = this.code();
    if (first === NEWLINE || first === SPACE) this.giveUp();
    if (isIndicator(first)) this.giveUp();
    if (first === DASH && this.isSeparated(start + 1, flow)) this.giveUp();
    let end = start;
    let at = start;
    for (; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === NEWLINE) break;
      if (c === COLON && this.isSeparated(at + 1, flow)) break;
      if (c === HASH && text.charCodeAt(at - 1) === SPACE) break;
      if (flow && isFlowIndicator(c)) break;
      if (c !== SPACE) end = at + 1;
    }
    this.pos = end;
    return text.slice(start, end);
  }
}
