/**
 * The canonical JSON forms the project's hashes and signatures are computed over, byte-compatible with the
 * tools that verify them:
 *
 * - the package-sdk form (`canonicalJson`) of the plan's and the lock's hashes (`planHash`, `lockHash`,
 *   `variablesHash`), as the Python package-sdk computes them (compat §3): Python's
 *   `json.dumps(value, sort_keys=True, ensure_ascii=False)` — `", "` and `": "` separators, keys in
 *   code-point order, raw UTF-8, and floats kept as floats;
 * - the kernos form (`kernosCanonicalJson`) of bundle signatures (compat-kernos §2.1): no whitespace, keys
 *   sorted by UTF-16 code units, strings escaped as `JSON.stringify` does, and numbers printed the way Rust
 *   serde_json 1.0.151 prints the value it read — which depends on the lexeme, hence the lossless reader.
 *   It is not RFC 8785: `1250.0` stays `1250.0`, `1e16` becomes `1e+16`.
 */
import { JsonNumber, type JsonValue, serdeF64 } from './parse.js';

// ---------------------------------------------------------------- the package-sdk form

/**
 * `floats` lists the JSON Pointers of integral numbers that were written as floats (`1.0`): JavaScript
 * cannot tell them from integers, and Python prints them as `1.0` (see `SourceDocument.floats`).
 */
export function canonicalJson(value: unknown, floats: ReadonlySet<string> = new Set()): string {
  return write(value, '', floats);
}

/**
 * Python's `str(value)` of a scalar read from YAML or JSON — what the reference writes where it turns a value
 * into text (a variable default, a version): `True`, `None`, `2.0` for a float written `2.0`.
 */
export function pythonStr(value: unknown, writtenAsFloat = false): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'number') return writeNumber(value, writtenAsFloat);
  return String(value);
}

/**
 * Python string order (code points), without encoding the strings (a plan's keys are sorted by it). UTF-16
 * order is the same but for surrogates (code points past U+FFFF), which sort after U+E000…U+FFFF, not before.
 */
export function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const [x, y] = [a.charCodeAt(i), b.charCodeAt(i)];
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Keys sorted in place in code-point order: the native (UTF-16) sort, unless a key holds a surrogate. */
export function inCodePointOrder(keys: string[]): string[] {
  return keys.some((key) => SURROGATE.test(key)) ? keys.sort(byCodePoint) : keys.sort();
}

/** A UTF-16 code unit's place in code-point order: surrogates moved past U+FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * The file form of a plan: Python's `json.dumps(value, indent=2, ensure_ascii=False)` plus a newline — keys in
 * the document's own order, `,` + newline between items, raw UTF-8, floats kept as floats.
 */
export function prettyJson(value: unknown, floats: ReadonlySet<string> = new Set()): string {
  return `${pretty(value, '', floats, '')}\n`;
}

function pretty(value: unknown, pointer: string, floats: ReadonlySet<string>, indent: string): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item, index) => `${inner}${pretty(item, childOf(pointer, index, floats), floats, inner)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
    if (keys.length === 0) return '{}';
    const members = keys.map((key) =>
      `${inner}${JSON.stringify(key)}: ${pretty((value as Record<string, unknown>)[key], childOf(pointer, key, floats), floats, inner)}`);
    return `{\n${members.join(',\n')}\n${indent}}`;
  }
  return write(value, pointer, floats);
}

function write(value: unknown, pointer: string, floats: ReadonlySet<string>): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return JSON.stringify(value); // escapes exactly what Python escapes
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return writeNumber(value, floats.has(pointer));
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => write(item, childOf(pointer, index, floats), floats)).join(', ')}]`;
  }
  if (typeof value === 'object') {
    const keys = inCodePointOrder(Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined));
    const members = keys.map((key) =>
      `${JSON.stringify(key)}: ${write((value as Record<string, unknown>)[key], childOf(pointer, key, floats), floats)}`);
    return `{${members.join(', ')}}`;
  }
  throw new TypeError(`canonical JSON has no form for ${typeof value}`);
}

/** The pointer of a child, built only when there are floats to look it up in (a plan's document has thousands of nodes). */
function childOf(pointer: string, key: string | number, floats: ReadonlySet<string>): string {
  if (floats.size === 0) return '';
  return `${pointer}/${typeof key === 'number' ? key : escapePointer(key)}`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function writeNumber(value: number, writtenAsFloat: boolean): string {
  if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for ${value}`);
  if (Number.isInteger(value) && !writtenAsFloat) return BigInt(value).toString();
  return pythonFloatRepr(value);
}

/** Python's `repr(float)`: shortest round-trip digits, fixed notation for exponents -4…15, else `1e+16`. */
function pythonFloatRepr(value: number): string {
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const exp = `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${fraction}e${exp}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

// ---------------------------------------------------------------- the kernos form

const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

/** The kernos canonical JSON of a value read losslessly (numbers as their lexemes) or computed. */
export function kernosCanonicalJson(value: JsonValue): string {
  return compactSorted(value, kernosScalar);
}

function kernosScalar(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return formatJsNumber(value);
  if (value instanceof JsonNumber) return formatLexeme(value.lexeme);
  throw new TypeError(`kernos canonical JSON has no form for ${typeof value}`);
}

/** The UTF-8 bytes of the kernos canonical JSON: what bundle signatures cover. */
export function kernosCanonicalBytes(value: JsonValue): Uint8Array {
  return new TextEncoder().encode(kernosCanonicalJson(value));
}

/** serde_json keeps integer lexemes that fit i64/u64 exact and reads every other number as f64, its own way. */
function formatLexeme(lexeme: string): string {
  if (!/[.eE]/.test(lexeme)) {
    const n = BigInt(lexeme);
    const negativeZero = lexeme.startsWith('-') && n === 0n;
    if (!negativeZero && n >= I64_MIN && n <= U64_MAX) return n.toString();
  }
  const value = serdeF64(lexeme);
  if (value === undefined) throw new RangeError(`${lexeme} is out of the range serde_json reads`);
  return formatFloat(value);
}

/** A number computed at run time (not read from a text): integers print as integers. */
function formatJsNumber(n: number): string {
  return Number.isSafeInteger(n) && !Object.is(n, -0) ? String(n) : formatFloat(n);
}

/**
 * ryu/zmij layout of the shortest round-trip digits: with d the digits (length n) and the value
 * d×10^k, kk = n + k decides between plain `1250.0`, `0.001` and exponent forms `1e+16`, `1.5e-7`.
 */
export function formatFloat(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`${x} has no JSON form`);
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const n = digits.length;
  const kk = Number(exponent) + 1;
  const k = kk - n;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${'0'.repeat(-kk)}${digits}`;
  else {
    const e = kk - 1;
    const exp = `e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
    body = n === 1 ? `${digits}${exp}` : `${digits[0]}.${digits.slice(1)}${exp}`;
  }
  return sign + body;
}

// ---------------------------------------------------------------- the local core's form

/**
 * The local core's own form (`specHash`, `definitionHash`, its `planHash`, idempotency fingerprints):
 * `JSON.stringify`'s text with object keys in UTF-16 order and undefined members dropped. Clients compare these
 * hashes and never recompute them; the form is kept byte for byte so that a data directory written by an
 * earlier version still compares equal.
 */
export function compactJson(value: unknown): string {
  return compactSorted(value, (scalar) => JSON.stringify(scalar) ?? 'null');
}

/** True when two values are equal as JSON (key order aside; an undefined member is no member). */
export function sameJson(a: unknown, b: unknown): boolean {
  return compactJson(a) === compactJson(b);
}

/** Plain string order (UTF-16 code units), as the core sorts paths and keys. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compact JSON, object keys in UTF-16 order, undefined members dropped; every other value as `scalar` writes it. */
function compactSorted(value: unknown, scalar: (value: unknown) => string): string {
  if (Array.isArray(value)) return `[${value.map((item) => compactSorted(item, scalar)).join(',')}]`;
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return scalar(value);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort(byText);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${compactSorted(record[key], scalar)}`).join(',')}}`;
}
