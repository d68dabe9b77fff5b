/**
 * Version ranges of `requires[].version` and `engines.<component>` (compat-package-sdk-check.md §2.7,
 * compat-package-sdk-install.md §4.4). The grammar is the reference's, not npm's: conditions separated by
 * commas must all hold; a partial version is a prefix (`1.2` is `>=1.2.0,<1.3.0`); pre-releases compare by
 * SemVer 2.0 precedence and are never excluded from a range; build metadata is refused inside a range.
 */

/** A version: `major[.minor[.patch]][-pre][+build]`; missing parts are 0, build metadata is ignored. */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated pre-release identifiers (numeric ones as numbers); empty for a release. */
  prerelease: readonly (string | number)[];
}

/** One bound of a condition. */
interface Bound {
  version: Version;
  inclusive: boolean;
}

/** One condition of a range: the versions between its bounds (an absent bound is open). */
interface Condition {
  lower?: Bound;
  upper?: Bound;
}

export type ParsedRange = { ok: true; conditions: readonly Condition[] } | { ok: false; reason: string };

const NUMBERS = String.raw`([0-9]+)`;
const PRERELEASE = String.raw`[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*`;
const VERSION = new RegExp(String.raw`^${NUMBERS}(?:\.${NUMBERS})?(?:\.${NUMBERS})?(?:-(${PRERELEASE}))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$`);
const CONDITION = new RegExp(String.raw`^(>=|<=|>|<|=|\^|~)?${NUMBERS}(?:\.${NUMBERS})?(?:\.${NUMBERS})?(?:-(${PRERELEASE}))?$`);

/** The version written in `text`, or undefined when it is not one. */
export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  return versionOf(match[1]!, match[2], match[3], match[4]);
}

/** The conditions of a range, or why it does not parse (for `requires_version_invalid` / `engines_invalid`). */
export function parseRange(text: string): ParsedRange {
  if (text.trim() === '') return { ok: false, reason: 'the range is empty' };
  const conditions: Condition[] = [];
  for (const part of text.split(',')) {
    const condition = parseCondition(part.trim());
    if (typeof condition === 'string') return { ok: false, reason: condition };
    conditions.push(condition);
  }
  return { ok: true, conditions };
}

/** True when `version` meets every condition of `range`. */
export function satisfies(version: Version, range: { conditions: readonly Condition[] }): boolean {
  return range.conditions.every((condition) => withinCondition(version, condition));
}

/** `satisfies` on text: false when either side does not parse. */
export function versionSatisfies(version: string, range: string): boolean {
  const parsedVersion = parseVersion(version);
  const parsedRange = parseRange(range);
  return parsedVersion !== undefined && parsedRange.ok && satisfies(parsedVersion, parsedRange);
}

/** SemVer 2.0 precedence: negative when `a` comes first, 0 when equal (build metadata plays no part). */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePrerelease(a.prerelease, b.prerelease);
}

function parseCondition(text: string): Condition | string {
  if (text === '') return 'a condition between commas is empty';
  if (text === '*') return {};
  const match = CONDITION.exec(text);
  if (!match) return `'${text}' is not a condition: an operator (>=, >, <=, <, =, ^, ~ or none) and a version of 1 to 3 numbers, or *`;
  const operator = match[1] ?? '=';
  const given = [match[2], match[3], match[4]].filter((part) => part !== undefined).length;
  const version = versionOf(match[2]!, match[3], match[4], match[5]);
  // A pre-release names one exact version, so it is never read as a prefix.
  const prefix = given < 3 && version.prerelease.length === 0;
  return conditionOf(operator, version, prefix ? given : 3);
}

/**
 * The bounds of one condition. `given` is how many numbers were written: a partial version stands for all
 * the versions it is a prefix of.
 */
function conditionOf(operator: string, version: Version, given: number): Condition {
  const atLeast = { version, inclusive: true };
  const pastPrefix = { version: bump(version, given - 1), inclusive: false };
  switch (operator) {
    case '>=':
      return { lower: atLeast };
    case '>':
      return given < 3 ? { lower: { version: pastPrefix.version, inclusive: true } } : { lower: { version, inclusive: false } };
    case '<=':
      return given < 3 ? { upper: pastPrefix } : { upper: { version, inclusive: true } };
    case '<':
      return { upper: { version, inclusive: false } };
    case '^':
      return { lower: atLeast, upper: { version: bump(version, caretPart(version, given)), inclusive: false } };
    case '~':
      return { lower: atLeast, upper: { version: bump(version, given === 1 ? 0 : 1), inclusive: false } };
    default:
      return given < 3 ? { lower: atLeast, upper: pastPrefix } : { lower: atLeast, upper: { version, inclusive: true } };
  }
}

/** `^` keeps the first non-zero part written (`^0.2.3` → `<0.3.0`); all zeros keep the last written (`^0.0` → `<0.1.0`). */
function caretPart(version: Version, given: number): number {
  const parts = [version.major, version.minor, version.patch].slice(0, given);
  const firstNonZero = parts.findIndex((part) => part !== 0);
  return firstNonZero === -1 ? given - 1 : firstNonZero;
}

/** The first release after every version that shares parts 0..`part`: `bump(1.2.3, 1)` = 1.3.0. */
function bump(version: Version, part: number): Version {
  if (part <= 0) return { major: version.major + 1, minor: 0, patch: 0, prerelease: [] };
  if (part === 1) return { major: version.major, minor: version.minor + 1, patch: 0, prerelease: [] };
  return { major: version.major, minor: version.minor, patch: version.patch + 1, prerelease: [] };
}

function withinCondition(version: Version, { lower, upper }: Condition): boolean {
  if (lower) {
    const order = compareVersions(version, lower.version);
    if (order < 0 || (order === 0 && !lower.inclusive)) return false;
  }
  if (upper) {
    const order = compareVersions(version, upper.version);
    if (order > 0 || (order === 0 && !upper.inclusive)) return false;
  }
  return true;
}

function versionOf(major: string, minor: string | undefined, patch: string | undefined, prerelease: string | undefined): Version {
  return {
    major: Number(major),
    minor: minor === undefined ? 0 : Number(minor),
    patch: patch === undefined ? 0 : Number(patch),
    prerelease: prerelease === undefined ? [] : prerelease.split('.').map((id) => (/^[0-9]+$/.test(id) ? Number(id) : id)),
  };
}

/** A release follows its pre-releases; identifiers compare one by one, numbers below words. */
function comparePrerelease(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
