/**
 * The one JSON reader of the project: strict RFC 8259 (no comments, no trailing commas, no lone surrogates,
 * no control characters in strings, only finite numbers), positional and lossless. `JSON.parse` keeps no
 * positions, silently keeps the last of two equal keys and forgets how a number was written (`1250.0`
 * becomes `1250`) — but findings name `file:line:col`, and both canonical forms (the Python package-sdk's
 * hashes, kernos's bundle signatures) print integral floats apart from integers. So numbers stay their lexeme
 * (`JsonNumber`) and every value's place is kept by JSON Pointer.
 *
 * Two readings differ only in what they accept: package files allow deep nesting; bundles, signatures and key
 * files read as kernos's serde_json does (`SERDE_JSON`: nesting at most 127 deep, numbers out of its range
 * refused). Both refuse a repeated key: serde_json keeps the last, another reader the first, and a bundle whose
 * two readings differ is not the bundle that was signed.
 */
import { childPointer } from './pointer.js';

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

/** Offsets (UTF-16 code units) of a value and, for an object member, of its key (quotes included). */
export interface JsonSpan {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

export interface ParsedJson {
  text: string;
  value: JsonValue;
  /** By JSON Pointer. */
  spans: Map<string, JsonSpan>;
}

export interface JsonReading {
  /** The deepest nesting of objects and arrays accepted. */
  maxDepth: number;
  /** Refuse numbers serde_json cannot read (`1e308` scaled past f64, as `serdeF64` computes it). */
  serdeNumbers: boolean;
}

/** Package files: nesting is bounded only against runaway input. */
export const PACKAGE_JSON: JsonReading = { maxDepth: 5000, serdeNumbers: false };
/**
 * Bundles, signatures and key files, as kernos reads them with serde_json: its recursion limit of 128 fails
 * on the 128th level, so at most 127; numbers as serde_json reads them.
 */
export const SERDE_JSON: JsonReading = { maxDepth: 127, serdeNumbers: true };

export class JsonSyntaxError extends Error {
  constructor(
    /** What is wrong, in words (without the place). */
    readonly reason: string,
    /** Offsets of the offending text. */
    readonly start: number,
    readonly end: number,
    /** 1-based place of `start`. */
    readonly line: number,
    readonly column: number,
    /** The pointer of the value being read ('' at the top or when unknown). */
    readonly pointer: string,
  ) {
    super(`${reason} at line ${line} column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
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

/** Reads `text`; throws `JsonSyntaxError` at the first thing that is not JSON. */
export function parseJson(text: string, reading: JsonReading = PACKAGE_JSON): ParsedJson {
  return new Reader(text, reading).document();
}

class Reader {
  readonly spans = new Map<string, JsonSpan>();
  private at = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly reading: JsonReading,
  ) {}

  document(): ParsedJson {
    this.skipSpace();
    const value = this.value('');
    this.skipSpace();
    if (this.at < this.text.length) this.fail('unexpected text after the JSON value');
    return { text: this.text, value, spans: this.spans };
  }

  private value(pointer: string, key?: { start: number; end: number }): JsonValue {
    const start = this.at;
    const value = this.bareValue(pointer);
    this.spans.set(pointer, key === undefined ? { start, end: this.at } : { start, end: this.at, keyStart: key.start, keyEnd: key.end });
    return value;
  }

  private bareValue(pointer: string): JsonValue {
    const c = this.text[this.at];
    if (c === '{') return this.nested(pointer, () => this.object(pointer));
    if (c === '[') return this.nested(pointer, () => this.array(pointer));
    if (c === '"') return this.string(pointer);
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    if (number === null) this.fail(c === undefined ? 'the JSON ends where a value was expected' : `unexpected ${describe(c)} where a value was expected`);
    const start = this.at;
    this.at += number[0].length;
    if (!Number.isFinite(Number(number[0]))) this.fail(`${number[0]} is not a finite number`, start, this.at, pointer);
    if (this.reading.serdeNumbers && serdeF64(number[0]) === undefined) this.fail(`${number[0]} is out of the range serde_json reads (it cannot scale it to a finite f64)`, start, this.at, pointer);
    return new JsonNumber(number[0]);
  }

  private nested<T>(pointer: string, read: () => T): T {
    if (++this.depth > this.reading.maxDepth) this.fail(`the document is nested deeper than ${this.reading.maxDepth} levels`, this.at, this.at + 1, pointer);
    try {
      return read();
    } finally {
      this.depth--;
    }
  }

  private object(pointer: string): JsonObject {
    this.at++;
    const object = emptyObject();
    const seen = new Set<string>();
    this.members('}', () => {
      if (this.text[this.at] !== '"') this.fail(`expected a key in double quotes, found ${describe(this.text[this.at])}`);
      const keyStart = this.at;
      const key = this.string(pointer);
      const keyEnd = this.at;
      const child = childPointer(pointer, key);
      if (seen.has(key)) this.fail(`duplicate key '${key}'`, keyStart, keyEnd, child);
      seen.add(key);
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      object[key] = this.value(child, { start: keyStart, end: keyEnd });
    });
    return object;
  }

  private array(pointer: string): JsonValue[] {
    this.at++;
    const array: JsonValue[] = [];
    this.members(']', () => array.push(this.value(childPointer(pointer, array.length))));
    return array;
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
      if (c === undefined) this.fail('the string is not closed', start, this.at, pointer);
      if (c === '"') break;
      if (c < ' ') this.fail(`a control character (U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}) must be escaped in a string`);
      if (isSurrogate(c.charCodeAt(0))) {
        if (!isHighSurrogate(c.charCodeAt(0)) || !isLowSurrogate(this.text.charCodeAt(this.at + 1))) this.loneSurrogate(pointer);
        this.at += 2;
        continue;
      }
      if (c !== '\\') {
        this.at++;
        continue;
      }
      out += this.text.slice(from, this.at);
      out += this.escape(pointer);
      from = this.at;
    }
    out += this.text.slice(from, this.at);
    this.at++;
    return out;
  }

  private escape(pointer: string): string {
    const e = this.text[this.at + 1];
    if (e === 'u') {
      const unit = this.hex4(this.at + 2);
      if (isLowSurrogate(unit) || (isHighSurrogate(unit) && !(this.text.startsWith('\\u', this.at + 6) && isLowSurrogate(this.hex4(this.at + 8))))) {
        this.loneSurrogate(pointer);
      }
      const length = isHighSurrogate(unit) ? 12 : 6;
      const decoded = length === 12 ? String.fromCharCode(unit, this.hex4(this.at + 8)) : String.fromCharCode(unit);
      this.at += length;
      return decoded;
    }
    if (e === undefined || !(e in ESCAPES)) this.fail(`unknown escape \\${e ?? ''}`);
    this.at += 2;
    return ESCAPES[e]!;
  }

  private hex4(at: number): number {
    const hex = this.text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('\\u must be followed by four hexadecimal digits', at - 2);
    return parseInt(hex, 16);
  }

  private loneSurrogate(pointer: string): never {
    this.fail('a lone surrogate (an unpaired \\uD800–\\uDFFF): JSON text holds only whole characters', this.at, this.at + 1, pointer);
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

  private fail(reason: string, start = this.at, end = Math.min(this.at + 1, this.text.length), pointer = ''): never {
    const { line, column } = lineColumn(this.text, start);
    throw new JsonSyntaxError(reason, start, end, line, column, pointer);
  }
}

const U64_MAX = 2n ** 64n - 1n;
const SERDE_NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?)([0-9]+))?$/;

/**
 * The f64 serde_json (without `float_roundtrip`, as kernos builds it) reads from a float lexeme, or undefined
 * where it refuses the number as out of range. It is not always the nearest f64 — `1e-23` reads as
 * `1.0000000000000001e-23` —, and the canonical bytes a signature covers print that value: the digits
 * accumulate in a u64 (further digits only scale the exponent), then one multiplication or division by a
 * power of ten from a table of `1e0`…`1e308`, as in serde_json's `f64_from_parts`.
 */
export function serdeF64(lexeme: string): number | undefined {
  const match = SERDE_NUMBER.exec(lexeme);
  if (match === null) throw new TypeError(`${lexeme} is not a JSON number`);
  const [, sign, whole, fraction, exponentSign, exponentDigits] = match as unknown as [string, string, string, string | undefined, string, string | undefined];
  const digits = new SerdeDigits();
  for (const digit of whole) digits.wholeDigit(digit);
  if (fraction !== undefined) {
    digits.overflowed = false; // serde_json's parse_decimal tries every fraction digit afresh
    for (const digit of fraction) digits.fractionDigit(digit);
  }
  let exponent = digits.exponent;
  if (exponentDigits !== undefined) {
    const significant = exponentDigits.replace(/^0+/, '');
    const written = significant.length > 10 ? Infinity : Number(significant);
    if (written > 2 ** 31 - 1) {
      // The exponent overflows i32: infinity is an error, anything else is zero.
      if (digits.significand !== 0n && exponentSign !== '-') return undefined;
      return sign === '-' ? -0 : 0;
    }
    exponent = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, exponent + (exponentSign === '-' ? -written : written)));
  }
  const magnitude = scaledByPowerOfTen(Number(digits.significand), exponent);
  if (magnitude === undefined) return undefined;
  return sign === '-' ? -magnitude : magnitude;
}

/** The u64 significand and decimal exponent serde_json accumulates while it reads digits. */
class SerdeDigits {
  significand = 0n;
  exponent = 0;
  overflowed = false;

  wholeDigit(digit: string): void {
    if (!this.overflowed && !this.wouldOverflow(digit)) this.significand = this.significand * 10n + BigInt(digit);
    else {
      this.overflowed = true; // the rest of the integer part only scales
      this.exponent++;
    }
  }

  fractionDigit(digit: string): void {
    if (this.overflowed || this.wouldOverflow(digit)) {
      this.overflowed = true; // further digits are ignored
      return;
    }
    this.significand = this.significand * 10n + BigInt(digit);
    this.exponent--;
  }

  private wouldOverflow(digit: string): boolean {
    return this.significand * 10n + BigInt(digit) > U64_MAX;
  }
}

function scaledByPowerOfTen(significand: number, exponent: number): number | undefined {
  let f = significand;
  for (let e = exponent; ; e += 308) {
    if (Math.abs(e) <= 308) {
      const power = Number(`1e${Math.abs(e)}`);
      if (e < 0) return f / power;
      f *= power;
      return Number.isFinite(f) ? f : undefined;
    }
    if (f === 0) return f;
    if (e >= 0) return undefined;
    f /= 1e308;
  }
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function describe(c: string | undefined): string {
  if (c === undefined) return 'the end of the file';
  return /^[\x21-\x7e]$/.test(c) ? `'${c}'` : `U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
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

/** The span of the value at `pointer`, or of its deepest existing ancestor (a missing field), and whether it was found. */
export function spanAt(parsed: ParsedJson, pointer: string): { span: JsonSpan; found: boolean } {
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
    const span = parsed.spans.get(p);
    if (span !== undefined) return { span, found: p === pointer };
    if (p === '') return { span: { start: 0, end: 0 }, found: false };
  }
}

/** Where the value at `pointer` (or its deepest existing ancestor) is written, start and end. */
export function locate(parsed: ParsedJson, pointer: string): { line: number; column: number; endLine: number; endColumn: number } {
  const { span } = spanAt(parsed, pointer);
  const start = lineColumn(parsed.text, span.start);
  const end = lineColumn(parsed.text, span.end);
  return { ...start, endLine: end.line, endColumn: end.column };
}

/**
 * The value with plain numbers, as the rest of the project reads package files, and the pointers of the
 * numbers written as integral floats (`1.0`, `1e3`): JavaScript cannot tell them from integers, but canonical
 * JSON and the hashes built on it can. An integer `-0` reads as 0.
 */
export function plainJson(value: JsonValue): { value: unknown; floats: Set<string> } {
  const floats = new Set<string>();
  const plain = (item: JsonValue, pointer: string): unknown => {
    if (item instanceof JsonNumber) {
      const number = Number(item.lexeme);
      if (item.isFloat && Number.isInteger(number)) floats.add(pointer);
      return number === 0 && !item.isFloat ? 0 : number;
    }
    if (Array.isArray(item)) return item.map((element, index) => plain(element, childPointer(pointer, index)));
    if (item === null || typeof item !== 'object') return item;
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(item)) {
      const member = plain(item[key]!, childPointer(pointer, key));
      if (key === '__proto__') Object.defineProperty(object, key, { value: member, enumerable: true, writable: true, configurable: true });
      else object[key] = member;
    }
    return object;
  };
  return { value: plain(value, ''), floats };
}
