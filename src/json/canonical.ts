import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * Canonical JSON of the plan's hashes (`planHash`, `lockHash`, `variablesHash`), byte-compatible with the
 * reference installer (compat §3): Python's `json.dumps(value, sort_keys=True, ensure_ascii=False)` —
 * `", "` and `": "` separators, keys in code-point order, raw UTF-8, and floats kept as floats.
 */

/**
 * `floats` lists the JSON Pointers of integral numbers that were written as floats (`1.0`): JavaScript
 * cannot tell them from integers, and Python prints them as `1.0` (see `SourceDocument.floats`).
 */
export function canonicalJson(value: unknown, floats: ReadonlySet<string> = new Set()): string {
  return write(value, '', floats);
}

/** `sha256:` + hex of the canonical JSON's UTF-8 bytes. */
export function digest(value: unknown, floats?: ReadonlySet<string>): string {
  return `sha256:${bytesToHex(sha256(utf8ToBytes(canonicalJson(value, floats))))}`;
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

/** Python string order (code points); UTF-8 byte order is the same order, UTF-16 `<` is not. */
export function byCodePoint(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
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
    const items = value.map((item, index) => `${inner}${pretty(item, `${pointer}/${index}`, floats, inner)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
    if (keys.length === 0) return '{}';
    const members = keys.map((key) =>
      `${inner}${JSON.stringify(key)}: ${pretty((value as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`, floats, inner)}`);
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
    return `[${value.map((item, index) => write(item, `${pointer}/${index}`, floats)).join(', ')}]`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined).sort(byCodePoint);
    const members = keys.map((key) =>
      `${JSON.stringify(key)}: ${write((value as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`, floats)}`);
    return `{${members.join(', ')}}`;
  }
  throw new TypeError(`canonical JSON has no form for ${typeof value}`);
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
