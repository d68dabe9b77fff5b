/**
 * Functions of the `taimen/1` profile beyond the CEL library's own: ISO 8601 `duration()`, `timestamp()` of a
 * timestamp, the rest of CEL's strings extension, and `cal.*`.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { CalendarNamespace } from './calendar.js';
import { parseDuration } from './duration.js';

/** Functions over all the records of a view's source, allowed in metrics and chart blocks only. */
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;

/** What the library calls the types that the profile calls `timestamp` and `duration`. */
export const LIBRARY_TYPE_NAMES: Readonly<Record<string, string>> = {
  timestamp: 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
};

/**
 * `duration()` of the profile reads ISO 8601; the library's own `duration(string)` reads only Go-style text and
 * cannot be replaced, so a parsed `duration(…)` call is renamed to this function before it is checked.
 */
export const ISO_DURATION_FUNCTION = 'taimen_duration';

/** Every function of the profile answers at once; the library otherwise prepares for promises. */
export const SYNC = { async: false } as const;

/** Registers every function of the profile on the environment all others are cloned from. */
export function registerProfileFunctions(env: Environment): void {
  const T = LIBRARY_TYPE_NAMES.timestamp;
  const D = LIBRARY_TYPE_NAMES.duration;
  env.registerFunction(`${ISO_DURATION_FUNCTION}(string): ${D}`, (text: string) => durationOf(text), SYNC);
  env.registerFunction(`${ISO_DURATION_FUNCTION}(${D}): ${D}`, (value: Duration) => value, SYNC);
  env.registerFunction(`timestamp(${T}): ${T}`, (value: Date) => value, SYNC);
  registerStringExtensions(env);
  registerCalendarFunctions(env);
}

/** The part of CEL's strings extension the library lacks (it has lowerAscii, upperAscii, trim, split, join, …). */
function registerStringExtensions(env: Environment): void {
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) => text.replaceAll(from, to), SYNC);
  env.registerFunction('string.replace(string, string, int): string', (text: string, from: string, to: string, limit: bigint) => {
    let out = text;
    let at = 0;
    for (let n = 0n; limit < 0n || n < limit; n++) {
      const found = out.indexOf(from, at);
      if (found < 0 || from === '') break;
      out = out.slice(0, found) + to + out.slice(found + from.length);
      at = found + to.length;
    }
    return out;
  }, SYNC);
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => [...text][Number(index)] ?? '', SYNC);
  env.registerFunction('string.reverse(): string', (text: string) => [...text].reverse().join(''), SYNC);
}

function durationOf(text: string): Duration {
  const parsed = parseDuration(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return Duration.fromMilliseconds(parsed.milliseconds);
}

const MS_PER_HOUR = 3_600_000;

function registerCalendarFunctions(env: Environment): void {
  const NS = CalendarNamespace.typeName;
  const T = LIBRARY_TYPE_NAMES.timestamp;
  const D = LIBRARY_TYPE_NAMES.duration;
  env.registerType(NS, CalendarNamespace);
  // Each function takes an optional trailing calendar key; CEL has no optional parameters, so two overloads.
  for (const [key, tail] of [[false, ''], [true, ', string']] as const) {
    const pick = (ns: CalendarNamespace, args: unknown[]) => ns.calendar(key ? (args.at(-1) as string) : undefined);
    env.registerFunction(`${NS}.addWorkdays(${T}, int${tail}): ${T}`, (ns: CalendarNamespace, at: Date, days: bigint, ...rest: unknown[]) =>
      pick(ns, rest).addWorkdays(at, Number(days)), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, ${D}${tail}): ${T}`, (ns: CalendarNamespace, at: Date, span: Duration, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, span.valueOf()), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, int${tail}): ${T}`, (ns: CalendarNamespace, at: Date, hours: bigint, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, Number(hours) * MS_PER_HOUR), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, double${tail}): ${T}`, (ns: CalendarNamespace, at: Date, hours: number, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, hours * MS_PER_HOUR), SYNC);
    env.registerFunction(`${NS}.isWorkday(${T}${tail}): bool`, (ns: CalendarNamespace, at: Date, ...rest: unknown[]) =>
      pick(ns, rest).isWorkday(at), SYNC);
    env.registerFunction(`${NS}.workdaysBetween(${T}, ${T}${tail}): int`, (ns: CalendarNamespace, from: Date, to: Date, ...rest: unknown[]) =>
      BigInt(pick(ns, rest).workdaysBetween(from, to)), SYNC);
  }
}
