/**
 * JSON files (process data schemas, bundles, plans, locks) through the same `SourceDocument` interface
 * as YAML: positions of every node, integral floats (`1.0`, `1e3`) listed in `floats`, duplicate keys
 * refused. `JSON.parse` keeps no positions and silently keeps the last duplicate, hence this parser.
 *
 * | code         | severity | when                                                                    |
 * |--------------|----------|-------------------------------------------------------------------------|
 * | invalid_json | error    | not JSON (syntax), a duplicate key, a non-finite number, a lone surrogate |
 */
import type { Span } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import type { SourceDocument } from '../json/document.js';
import type { LoadResult } from './load-finding.js';
import { lineStartsOf, loadError, spanOf } from './load-finding.js';
import { childPointer, pointerSegments } from '../json/pointer.js';
import { mapScalar } from './scalar-offsets.js';

type JsonNode =
  | { type: 'object'; start: number; end: number; entries: { key: string; keyStart: number; keyEnd: number; value: JsonNode }[] }
  | { type: 'array'; start: number; end: number; items: JsonNode[] }
  | { type: 'scalar'; start: number; end: number; string: boolean };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const MAX_DEPTH = 5000;

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
    readonly pointer = '',
  ) {
    super(message);
  }
}

/** Parses `text` (the contents of `file`) into a document, or into an `invalid_json` finding. */
export function parseJson(text: string, file: string): LoadResult {
  const lineStarts = lineStartsOf(text);
  const parser = new JsonParser(text);
  try {
    const { value, node } = parser.document();
    return { document: new JsonDocument(file, text, value, node, parser.floats, lineStarts), findings: [] };
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const finding: Finding = loadError('invalid_json', file, spanOf(lineStarts, error.start, error.end), error.pointer, error.message);
    return { findings: [finding] };
  }
}

class JsonParser {
  readonly floats = new Set<string>();
  private at = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  document(): { value: unknown; node: JsonNode } {
    this.skipSpace();
    const result = this.value('');
    this.skipSpace();
    if (this.at < this.text.length) this.fail('unexpected text after the JSON value');
    return result;
  }

  private value(pointer: string): { value: unknown; node: JsonNode } {
    const c = this.text[this.at];
    if (c === '{') return this.nested(() => this.object(pointer));
    if (c === '[') return this.nested(() => this.array(pointer));
    const start = this.at;
    if (c === '"') {
      const value = this.string(pointer);
      return { value, node: { type: 'scalar', start, end: this.at, string: true } };
    }
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return { value, node: { type: 'scalar', start, end: this.at, string: false } };
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    if (number === null) {
      this.fail(c === undefined ? 'the JSON ends where a value was expected' : `unexpected ${describe(c)} where a value was expected`);
    }
    this.at += number[0].length;
    const value = Number(number[0]);
    if (!Number.isFinite(value)) throw new JsonSyntaxError(`${number[0]} is not a finite number`, start, this.at, pointer);
    if (/[.eE]/.test(number[0]) && Number.isInteger(value)) this.floats.add(pointer);
    return { value: value === 0 && !/[.eE]/.test(number[0]) ? 0 : value, node: { type: 'scalar', start, end: this.at, string: false } };
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) this.fail(`the document is nested deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private object(pointer: string): { value: unknown; node: JsonNode } {
    const start = this.at++;
    const value: Record<string, unknown> = {};
    const entries: Extract<JsonNode, { type: 'object' }>['entries'] = [];
    const seen = new Set<string>();
    this.members('}', () => {
      if (this.text[this.at] !== '"') this.fail(`expected a key in double quotes, found ${describe(this.text[this.at])}`);
      const keyStart = this.at;
      const key = this.string(pointer);
      const keyEnd = this.at;
      const child = childPointer(pointer, key);
      if (seen.has(key)) throw new JsonSyntaxError(`duplicate key '${key}'`, keyStart, keyEnd, child);
      seen.add(key);
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      const entry = this.value(child);
      if (key === '__proto__') Object.defineProperty(value, key, { value: entry.value, enumerable: true, writable: true, configurable: true });
      else value[key] = entry.value;
      entries.push({ key, keyStart, keyEnd, value: entry.node });
    });
    return { value, node: { type: 'object', start, end: this.at, entries } };
  }

  private array(pointer: string): { value: unknown; node: JsonNode } {
    const start = this.at++;
    const value: unknown[] = [];
    const items: JsonNode[] = [];
    this.members(']', () => {
      const item = this.value(childPointer(pointer, value.length));
      value.push(item.value);
      items.push(item.node);
    });
    return { value, node: { type: 'array', start, end: this.at, items } };
  }

  /** Comma-separated members up to `close` (the opening bracket is already read). */
  private members(close: '}' | ']', member: () => void): void {
    this.skipSpace();
    if (this.text[this.at] === close) {
      this.at++;
      return;
    }
    for (;;) {
      this.skipSpace();
      member();
      this.skipSpace();
      if (this.text[this.at] !== ',') break;
      this.at++;
    }
    this.expect(close);
  }

  private string(pointer: string): string {
    const start = this.at++;
    let out = '';
    let from = this.at;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) throw new JsonSyntaxError('the string is not closed', start, this.at, pointer);
      if (c === '"') break;
      if (c < ' ') this.fail(`a control character (U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}) must be escaped in a string`);
      if (c !== '\\') {
        this.at++;
        continue;
      }
      out += this.text.slice(from, this.at);
      const e = this.text[this.at + 1];
      if (e === 'u') {
        const hex = this.text.slice(this.at + 2, this.at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('\\u must be followed by four hexadecimal digits');
        out += String.fromCharCode(parseInt(hex, 16));
        this.at += 6;
      } else if (e !== undefined && e in ESCAPES) {
        out += ESCAPES[e];
        this.at += 2;
      } else this.fail(`unknown escape \\${e ?? ''}`);
      from = this.at;
    }
    out += this.text.slice(from, this.at);
    this.at++;
    if (LONE_SURROGATE.test(out)) {
      throw new JsonSyntaxError('the string holds a lone surrogate (an unpaired \\uD800–\\uDFFF): a package holds only JSON values', start, this.at, pointer);
    }
    return out;
  }

  private expect(c: string): void {
    if (this.text[this.at] !== c) this.fail(`expected '${c}', found ${describe(this.text[this.at])}`);
    this.at++;
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.at);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.at++;
      else return;
    }
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(message, this.at, Math.min(this.at + 1, this.text.length));
  }
}

function describe(c: string | undefined): string {
  if (c === undefined) return 'the end of the file';
  return /^[\x21-\x7e]$/.test(c) ? `'${c}'` : `U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
}

/** A loaded JSON file: the value, and the node tree kept to locate nodes of it. */
class JsonDocument implements SourceDocument {
  readonly suppressions: ReadonlyMap<number, readonly string[]> = new Map();

  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    private readonly root: JsonNode,
    readonly floats: ReadonlySet<string>,
    private readonly lineStarts: readonly number[],
  ) {}

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const found = this.find(pointer);
    const key = found.key;
    if (key !== undefined && (part === 'key' || !found.complete)) return spanOf(this.lineStarts, key[0], key[1]);
    return spanOf(this.lineStarts, found.node.start, found.node.end);
  }

  locateInScalar(pointer: string, offset: number): Span {
    const found = this.find(pointer);
    if (!found.complete || found.node.type !== 'scalar' || !found.node.string) return this.locate(pointer);
    const [map] = mapScalar(this.text, found.node.start, found.node.end, 'QUOTE_DOUBLE');
    const index = Math.max(0, Math.min(offset, map!.value.length));
    const at = map!.offsets[index]!;
    return spanOf(this.lineStarts, at, index < map!.value.length ? at + 1 : at);
  }

  private find(pointer: string): { node: JsonNode; key?: [number, number]; complete: boolean } {
    let node = this.root;
    let key: [number, number] | undefined;
    for (const segment of pointerSegments(pointer)) {
      let next: JsonNode | undefined;
      if (node.type === 'object') {
        const entry = node.entries.find((e) => e.key === segment);
        if (entry !== undefined) [next, key] = [entry.value, [entry.keyStart, entry.keyEnd]];
      } else if (node.type === 'array' && /^(0|[1-9][0-9]*)$/.test(segment)) {
        next = node.items[Number(segment)];
        if (next !== undefined) key = undefined;
      }
      if (next === undefined) return { node, key, complete: false };
      node = next;
    }
    return { node, key, complete: true };
  }
}
