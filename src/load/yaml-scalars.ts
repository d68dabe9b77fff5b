/**
 * The scalar rules of a package's YAML (compat-package-sdk-check.md §1.6): core-schema YAML 1.2 for
 * null, booleans and integers, the YAML 1.1 float syntax (which needs a dot), no timestamps, and only
 * the JSON tags. A `%YAML 1.1` directive changes none of this.
 */

/** A resolved scalar: its JSON value, and whether a number was written as a float. */
export type ScalarResult = { value: unknown; float?: boolean } | { error: string };

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const BOOLEANS = new Map([
  ['true', true], ['True', true], ['TRUE', true],
  ['false', false], ['False', false], ['FALSE', false],
]);
const DECIMAL = /^[-+]?[0-9]+$/;
const OCTAL = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
/** PyYAML's float resolver, kept as the reference keeps it: a dot is required, an exponent has a sign. */
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** What `!!float` accepts besides FLOAT (Python's float() after removing `_`). */
const TAGGED_FLOAT = /^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/;
const SEXAGESIMAL_INT = /^[-+]?[0-9]+(?::[0-5]?[0-9])+$/;
const MAX_DIGITS = 1000;

export const NOT_JSON = 'a package holds only JSON values';

/** The value of an untagged plain scalar. */
export function resolvePlain(text: string): ScalarResult {
  if (NULLS.has(text)) return { value: null };
  const bool = BOOLEANS.get(text);
  if (bool !== undefined) return { value: bool };
  const first = text.charCodeAt(0);
  // Only text starting with a digit, a sign or a dot can be a number: skip the regexes for words.
  if (!((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46)) return { value: text };
  const int = resolveInteger(text);
  if (int !== undefined) return int;
  if (FLOAT.test(text)) return resolveFloat(text);
  return { value: text };
}

/** An integer by the core schema, or undefined when `text` is not one. */
function resolveInteger(text: string): ScalarResult | undefined {
  let digits: string;
  let radix: number;
  if (DECIMAL.test(text)) [digits, radix] = [text, 10];
  else if (OCTAL.test(text)) [digits, radix] = [text.slice(2), 8];
  else if (HEX.test(text)) [digits, radix] = [text.slice(2), 16];
  else return undefined;
  const unsigned = digits.replace(/^[-+]/, '');
  if (unsigned.length > MAX_DIGITS) {
    return { error: `an integer of ${unsigned.length} digits — more than ${MAX_DIGITS}` };
  }
  const value = radix === 10 ? Number(digits) : parseInt(digits, radix);
  // Up to 1000 digits are an integer to the reference; past ~309 a JSON number here is infinite.
  if (!Number.isFinite(value)) return { error: `an integer of ${unsigned.length} digits is beyond the range of a JSON number` };
  return { value: value === 0 ? 0 : value }; // `-0` is the integer 0
}

/** A float the way PyYAML constructs one; non-finite values are not JSON. */
function resolveFloat(text: string): ScalarResult {
  const cleaned = text.replace(/_/g, '').toLowerCase();
  let value: number;
  if (cleaned.includes(':')) value = sexagesimal(cleaned);
  else if (/^[-+]?\.(inf|nan)$/.test(cleaned)) value = NaN;
  else value = Number(cleaned.endsWith('.') ? `${cleaned}0` : cleaned);
  if (!Number.isFinite(value)) return { error: `'${text}' is not a finite number: ${NOT_JSON}` };
  return { value, float: true };
}

function sexagesimal(cleaned: string): number {
  const sign = cleaned.startsWith('-') ? -1 : 1;
  const parts = cleaned.replace(/^[-+]/, '').split(':');
  let value = 0;
  for (const part of parts) value = value * 60 + Number(part.endsWith('.') ? `${part}0` : part);
  return sign * value;
}

const TAG_PREFIX = 'tag:yaml.org,2002:';

/** `tag:yaml.org,2002:int` → `!!int`: how authors write tags. */
export function shortTag(tag: string): string {
  return tag.startsWith(TAG_PREFIX) ? `!!${tag.slice(TAG_PREFIX.length)}` : tag;
}

/** The value of a scalar carrying an explicit tag (`!` and `!!str` make a string). */
export function resolveTagged(tag: string, text: string): ScalarResult {
  switch (tag) {
    case '!':
    case `${TAG_PREFIX}str`:
      return { value: text };
    case `${TAG_PREFIX}null`:
      return { value: null };
    case `${TAG_PREFIX}bool`: {
      const bool = BOOLEANS.get(text);
      return bool === undefined ? { error: `'${text}' is not a boolean (true or false)` } : { value: bool };
    }
    case `${TAG_PREFIX}int`:
      return resolveInteger(text) ?? { error: `'${text}' is not an integer` };
    case `${TAG_PREFIX}float`:
      return resolveTaggedFloat(text);
    default:
      return { error: `value tagged ${shortTag(tag)}: ${NOT_JSON}` };
  }
}

function resolveTaggedFloat(text: string): ScalarResult {
  const cleaned = text.replace(/_/g, '').toLowerCase();
  if (FLOAT.test(text) || TAGGED_FLOAT.test(cleaned) || SEXAGESIMAL_INT.test(cleaned)) return resolveFloat(text);
  if (/^[-+]?(\.?inf|infinity|\.?nan)$/.test(cleaned)) return { error: `'${text}' is not a finite number: ${NOT_JSON}` };
  return { error: `'${text}' is not a float` };
}

/** Whether a collection may carry `tag` (its own JSON tag, or none). */
export function collectionTagAllowed(tag: string | undefined, kind: 'map' | 'seq'): boolean {
  return tag === undefined || tag === '!' || tag === `${TAG_PREFIX}${kind}`;
}

/** A mapping key as JSON writes it, the way the reference's Python turns a scalar key into a string. */
export function keyText(value: unknown, float: boolean | undefined): string {
  if (value === null) return 'null';
  if (typeof value === 'number' && float && Number.isInteger(value)) return value.toFixed(1);
  return String(value);
}

/** Sets `key` as an own property even when it is `__proto__` (which an assignment would take as the prototype). */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
