/**
 * The canonical JSON of a bundle exactly as kernos computes it (compat-kernos §2.1): no whitespace,
 * object keys sorted by UTF-16 code units, strings escaped as `JSON.stringify` does, and numbers printed
 * the way Rust serde_json 1.0.151 prints the value it read — which depends on the lexeme, hence
 * the lossless reader. It is not RFC 8785: `1250.0` stays `1250.0`, `1e16` becomes `1e+16`.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { JsonNumber, type JsonValue, parseJson } from './parse.js';

const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return formatJsNumber(value);
  if (value instanceof JsonNumber) return formatLexeme(value.lexeme);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`;
}

export function canonicalBytesOf(value: JsonValue): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}

/** Lowercase hex SHA-256 of the canonical bytes — the `sha256` kernos writes in signature files. */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** Canonical bytes of a JSON text; throws `JsonSyntaxError` when it is not JSON. */
export function canonicalBundleBytes(text: string): Uint8Array {
  return canonicalBytesOf(parseJson(text).value);
}

/** Plain lowercase hex, as kernos prints it (no `sha256:` prefix). */
export function bundleDigest(text: string): string {
  return sha256Hex(canonicalBundleBytes(text));
}

/** serde_json keeps integer lexemes that fit i64/u64 exact and reads every other number as f64. */
function formatLexeme(lexeme: string): string {
  if (!/[.eE]/.test(lexeme)) {
    const n = BigInt(lexeme);
    const negativeZero = lexeme.startsWith('-') && n === 0n;
    if (!negativeZero && n >= I64_MIN && n <= U64_MAX) return n.toString();
  }
  return formatFloat(Number(lexeme));
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
