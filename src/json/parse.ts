/**
 * A lossless JSON reader for bundles. `JSON.parse` forgets how a number was written (`1250.0` becomes
 * `1250`), but the canonical form that bundle signatures cover prints integer and float lexemes
 * differently (compat-kernos §2.1), so numbers are kept as their lexeme. It also records where every
 * value is written, so a validation error can name `file:line:col`.
 *
 * Accepted input is what serde_json accepts: strict RFC 8259 JSON, no comments, no trailing commas,
 * no lone surrogates, nesting at most 128 deep; a repeated key keeps its last value.
 */

/** A number as written in the source. */
export class JsonNumber {
  constructor(readonly lexeme: string) {}

  /** Written with a fraction or an exponent: serde_json reads it as f64 and prints it as a float. */
  get isFloat(): boolean {
    return /[.eE]/.test(this.lexeme);
  }

  valueOf(): number {
    return Number(this.lexeme);
  }

  toJSON(): number {
    return Number(this.lexeme);
  }
}

export type JsonValue = null | boolean | string | number | JsonNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Offsets (UTF-16 code units) of a value and, for an object member, of its key. */
export interface JsonSpan {
  start: number;
  end: number;
  keyStart?: number;
}

export interface ParsedJson {
  text: string;
  value: JsonValue;
  /** By JSON Pointer. */
  spans: Map<string, JsonSpan>;
}

export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} at line ${line} column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 128;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

export function isJsonNumber(value: unknown): value is number | JsonNumber {
  return typeof value === 'number' || value instanceof JsonNumber;
}

/** An object without a prototype, so that keys such as `__proto__` are ordinary members. */
export function emptyObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

export function parseJson(text: string): ParsedJson {
  const spans = new Map<string, JsonSpan>();
  let pos = 0;

  const fail = (reason: string, at = pos): never => {
    const { line, column } = lineColumn(text, at);
    throw new JsonSyntaxError(reason, line, column);
  };
  const skipWhitespace = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      pos++;
    }
  };

  const readString = (): string => {
    pos++; // opening quote
    let out = '';
    let chunk = pos;
    for (;;) {
      if (pos >= text.length) fail('EOF while parsing a string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(chunk, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail('control character (\\u0000-\\u001F) found while parsing a string');
      if (c >= 0xd800 && c <= 0xdfff) {
        const pair = c <= 0xdbff && isLowSurrogate(text.charCodeAt(pos + 1));
        if (!pair) fail('lone surrogate in a string');
        pos += 2;
        continue;
      }
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(chunk, pos);
      const e = text[pos + 1];
      if (e === 'u') {
        out += readUnicodeEscape();
      } else if (e !== undefined && e in ESCAPES) {
        out += ESCAPES[e];
        pos += 2;
      } else {
        fail('invalid escape', pos + 1);
      }
      chunk = pos;
    }
  };

  const hex4 = (at: number): number => {
    const digits = text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) fail('invalid \\u escape', at);
    return parseInt(digits, 16);
  };

  const readUnicodeEscape = (): string => {
    const unit = hex4(pos + 2);
    pos += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) fail('lone trailing surrogate in hex escape', pos - 6);
    if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
    const low = text.slice(pos, pos + 2) === '\\u' ? hex4(pos + 2) : -1;
    if (!isLowSurrogate(low)) fail('lone leading surrogate in hex escape', pos - 6);
    pos += 6;
    return String.fromCharCode(unit, low);
  };

  const readValue = (pointer: string, depth: number, keyStart?: number): JsonValue => {
    skipWhitespace();
    const start = pos;
    const value = readBareValue(pointer, depth);
    spans.set(pointer, keyStart === undefined ? { start, end: pos } : { start, end: pos, keyStart });
    return value;
  };

  const readBareValue = (pointer: string, depth: number): JsonValue => {
    if (pos >= text.length) fail('EOF while parsing a value');
    const c = text[pos];
    if (c === '{') return readObject(pointer, depth + 1);
    if (c === '[') return readArray(pointer, depth + 1);
    if (c === '"') return readString();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (!match) fail('expected value');
    const lexeme = match![0];
    if (!Number.isFinite(Number(lexeme))) fail('number out of range');
    pos += lexeme.length;
    return new JsonNumber(lexeme);
  };

  /** The members of an object or the items of an array, up to and including the closing bracket. */
  const readSequence = (depth: number, close: '}' | ']', what: string, readItem: () => void): void => {
    if (depth > MAX_DEPTH) fail('recursion limit exceeded');
    pos++;
    skipWhitespace();
    if (text[pos] === close) {
      pos++;
      return;
    }
    for (;;) {
      readItem();
      skipWhitespace();
      if (text[pos] === ',') pos++;
      else if (text[pos] === close) {
        pos++;
        return;
      } else fail(pos >= text.length ? `EOF while parsing ${what}` : `expected \`,\` or \`${close}\``);
    }
  };

  const readObject = (pointer: string, depth: number): JsonObject => {
    const object = emptyObject();
    readSequence(depth, '}', 'an object', () => {
      skipWhitespace();
      if (text[pos] !== '"') fail(pos >= text.length ? 'EOF while parsing an object' : 'key must be a string');
      const keyStart = pos;
      const key = readString();
      skipWhitespace();
      if (text[pos] !== ':') fail(pos >= text.length ? 'EOF while parsing an object' : 'expected `:`');
      pos++;
      object[key] = readValue(`${pointer}/${pointerSegment(key)}`, depth, keyStart);
    });
    return object;
  };

  const readArray = (pointer: string, depth: number): JsonValue[] => {
    const array: JsonValue[] = [];
    readSequence(depth, ']', 'a list', () => array.push(readValue(`${pointer}/${array.length}`, depth)));
    return array;
  };

  const value = readValue('', 0);
  skipWhitespace();
  if (pos < text.length) fail('trailing characters');
  return { text, value, spans };
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** 1-based line and column (in UTF-16 code units) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Where the value at `pointer` is written, start and end; a pointer past the existing nodes (a missing
 * field) resolves to its deepest existing ancestor.
 */
export function locate(parsed: ParsedJson, pointer: string): { line: number; column: number; endLine: number; endColumn: number } {
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
    const span = parsed.spans.get(p) ?? (p === '' ? { start: 0, end: 0 } : undefined);
    if (span) {
      const start = lineColumn(parsed.text, span.start);
      const end = lineColumn(parsed.text, span.end);
      return { ...start, endLine: end.line, endColumn: end.column };
    }
  }
}
