/**
 * Functions of the `cp/1` profile beyond the CEL library's own (compat-core-cel.md §1–§2): the conversions and
 * operators of the standard library the library lacks, `matches()` as RE2, ISO 8601 `duration()` literals, the
 * members of cel-cpp's strings extension, optionals (`optMap`, `optFlatMap`, equality, `ofNonZeroValue`), the core's
 * `decimal()` and list functions, and `cal.*`.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CalendarNamespace, KeyedCalendarNamespace, type WorkCalendar } from './calendar.js';
import { parseDuration } from './duration.js';
import { compileRegex } from './regex.js';

/** Functions over all the records of a view's source, allowed in metrics and chart blocks only. */
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;

/** What the library calls the types that the profile calls `timestamp` and `duration`. */
export const LIBRARY_TYPE_NAMES: Readonly<Record<string, string>> = {
  timestamp: 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
};

/**
 * The core rewrites a literal `duration("P…")` to CEL's seconds form before compiling; the library's own
 * `duration(string)` reads only Go-style text and cannot be replaced, so such a call is renamed to this function.
 */
export const ISO_DURATION_FUNCTION = 'taimen_duration';

/** `matches()` of the profile is RE2 (`(?i)`, `[[:alpha:]]`, no look-around): calls are renamed to this function. */
export const RE2_MATCHES_FUNCTION = 'taimen_matches';

/** Every function of the profile answers at once; the library otherwise prepares for promises. */
export const SYNC = { async: false } as const;

const T = LIBRARY_TYPE_NAMES.timestamp!;
const D = LIBRARY_TYPE_NAMES.duration!;

/** Registers every function of the profile on the environment all others are cloned from. */
export function registerProfileFunctions(env: Environment): void {
  registerConversions(env);
  registerStringExtensions(env);
  registerOptionals(env);
  registerCoreFunctions(env);
  registerCalendarFunctions(env);
}

/** Conversions and operators of the standard library that the library does not declare. */
function registerConversions(env: Environment): void {
  env.registerFunction(`${ISO_DURATION_FUNCTION}(string): ${D}`, (text: string) => durationOf(text), SYNC);
  env.registerFunction(`duration(${D}): ${D}`, (value: Duration) => value, SYNC);
  env.registerFunction(`timestamp(${T}): ${T}`, (value: Date) => value, SYNC);
  env.registerFunction(`string(${T}): string`, (value: Date) => value.toISOString().replace('.000Z', 'Z'), SYNC);
  env.registerFunction(`string(${D}): string`, (value: Duration) => `${value.valueOf() / 1000}s`, SYNC);
  env.registerFunction(`int(${T}): int`, (value: Date) => BigInt(Math.floor(value.getTime() / 1000)), SYNC);
  env.registerFunction('int(uint): int', (value: UnsignedInt) => BigInt(value.valueOf()), SYNC);
  env.registerFunction(`${RE2_MATCHES_FUNCTION}(string, string): bool`, (text: string, pattern: string) => re2Matches(text, pattern), SYNC);
  env.registerFunction(`string.${RE2_MATCHES_FUNCTION}(string): bool`, (text: string, pattern: string) => re2Matches(text, pattern), SYNC);
  // Messages and instants are nullable: a field of a message reads null when unset.
  // Instants compare with null, as messages and repeated fields do (see the environment's types).
  for (const type of [T, D]) env.registerOperator(`${type} == null`, (a: unknown, b: unknown) => a === b);
}

function re2Matches(text: string, pattern: string): boolean {
  const compiled = compileRegex(pattern);
  if ('error' in compiled) throw new Error(`invalid regular expression '${pattern}': ${compiled.error}`);
  return compiled.regex.matcher(text).find();
}

/** The members of cel-cpp's strings extension the library lacks (it has lowerAscii, upperAscii, trim, split, join, …). */
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
  env.registerFunction('string.format(list<dyn>): string', (text: string, args: unknown[]) => formatText(text, args), SYNC);
  env.registerType(StringsNamespace.typeName, StringsNamespace);
  env.registerConstant('strings', StringsNamespace.typeName, new StringsNamespace());
  env.registerFunction(`${StringsNamespace.typeName}.quote(string): string`, (_: StringsNamespace, text: string) => quoted(text), SYNC);
}

/** `strings.quote(…)` is a global function whose name has a dot, as `cal.*`: `strings` is no variable. */
class StringsNamespace {
  static readonly typeName = 'StringsNamespace';
}

const QUOTED_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"',
};

/** The text as a double-quoted CEL string literal: control characters, backslash and quote escaped; a lone surrogate is U+FFFD. */
function quoted(text: string): string {
  const wellFormed = text.replace(LONE_SURROGATE, '\uFFFD');
  return `"${wellFormed.replace(/[\x07\b\f\n\r\t\v\\"]/g, (c: string) => QUOTED_ESCAPES[c]!)}"`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `'%s of %d'.format([a, b])`: the verbs of the strings extension, each argument in its plain text. */
function formatText(text: string, args: readonly unknown[]): string {
  let next = 0;
  return text.replace(/%(?:\.\d+)?([sdfebxXo%])/g, (verb, kind: string) => {
    if (kind === '%') return '%';
    if (next >= args.length) throw new Error(`format: too few arguments for '${verb}'`);
    const value = args[next++];
    if (kind === 'x' || kind === 'X') return BigInt(value as bigint).toString(16)[kind === 'X' ? 'toUpperCase' : 'toLowerCase']();
    if (kind === 'o') return BigInt(value as bigint).toString(8);
    if (kind === 'b') return typeof value === 'boolean' ? String(value) : BigInt(value as bigint).toString(2);
    return typeof value === 'object' && value !== null ? JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) : String(value);
  });
}

/** The internals of the library a macro reaches: checking and running sub-expressions with a bound name. */
interface MacroNode {
  args: [MacroNode, ...unknown[]];
  op: string;
}
interface MacroContext {
  forkWithVariable(name: string, type: unknown): MacroContext;
  reuse(context: MacroContext): MacroContext;
  setIterValue(value: unknown, evaluator: unknown): MacroContext;
}
interface Checker {
  check(node: MacroNode, context: MacroContext): { kind: string; valueType?: unknown };
  createError(code: string, message: string, node: MacroNode): Error;
  registry: { getOptionalType(type: unknown): unknown };
  dynType: unknown;
}
interface Evaluator {
  run(node: MacroNode, context: MacroContext): unknown;
}

/**
 * `optional.optMap(x, e)` and `optional.optFlatMap(x, e)`: `e` with `x` bound to the value when there is one,
 * none otherwise. The core's optional extension has both; the library has neither.
 */
function optionalMacro(flat: boolean) {
  const usage = `${flat ? 'optFlatMap' : 'optMap'}(var, expression)`;
  return ({ args, receiver }: { args: MacroNode[]; receiver: MacroNode }) => {
    const [variable, expression] = args as [MacroNode, MacroNode];
    const macro = {
      bound: undefined as MacroContext | undefined,
      async: false,
      typeCheck(checker: Checker, _macro: unknown, context: MacroContext) {
        if (variable.op !== 'id') throw checker.createError('invalid_macro_argument', `${usage}: the variable must be a name`, variable);
        const type = checker.check(receiver, context);
        const value = type.kind === 'optional' ? type.valueType : checker.dynType;
        macro.bound = context.forkWithVariable(variable.args as unknown as string, value);
        const result = checker.check(expression, macro.bound);
        if (!flat) return checker.registry.getOptionalType(result);
        if (result.kind !== 'optional' && result.kind !== 'dyn') throw checker.createError('invalid_macro_argument', `${usage}: the expression must give an optional`, expression);
        return result;
      },
      evaluate(evaluator: Evaluator, _macro: unknown, context: MacroContext) {
        const optional = evaluator.run(receiver, context) as Optional;
        if (!optional.hasValue()) return Optional.none();
        const result = evaluator.run(expression, macro.bound!.reuse(context).setIterValue(optional.value(), evaluator));
        return flat ? result : Optional.of(result);
      },
    };
    return macro;
  };
}

function registerOptionals(env: Environment): void {
  env.registerFunction('optional<A>.optMap(ast, ast): optional<dyn>', optionalMacro(false));
  env.registerFunction('optional<A>.optFlatMap(ast, ast): optional<dyn>', optionalMacro(true));
  env.registerOperator('optional<A> == optional<A>', (a: Optional, b: Optional) =>
    a.hasValue() === b.hasValue() && (!a.hasValue() || celEquals(a.value(), b.value())));
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_: unknown, value: unknown) =>
    isZeroValue(value) ? Optional.none() : Optional.of(value), SYNC);
}

function isZeroValue(value: unknown): boolean {
  if (value === null || value === false || value === '' || value === 0 || value === 0n) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (value instanceof Map) return value.size === 0;
  if (value instanceof UnsignedInt) return value.valueOf() === 0n;
  return typeof value === 'object' && value !== null && value.constructor === Object && Object.keys(value).length === 0;
}

function celEquals(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return a.valueOf() === b.valueOf();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => celEquals(item, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => celEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/** The core's own functions: `decimal()` and the list members (declared over list(dyn): their results lose the element type). */
function registerCoreFunctions(env: Environment): void {
  for (const type of ['string', 'int', 'double']) env.registerFunction(`decimal(${type}): double`, decimalOf, SYNC);
  env.registerFunction('list<dyn>.slice(int, int): list<dyn>', (list: unknown[], start: bigint, end: bigint) => {
    if (start < 0n || start > end || end > BigInt(list.length)) throw new Error(`slice(${start}, ${end}) is outside a list of ${list.length}`);
    return list.slice(Number(start), Number(end));
  }, SYNC);
  env.registerFunction('list<dyn>.flatten(): list<dyn>', (list: unknown[]) => list.flatMap((item) => (Array.isArray(item) ? item : [item])), SYNC);
  env.registerFunction('list<dyn>.sort(): list<dyn>', (list: unknown[]) => sortValues(list), SYNC);
  env.registerFunction('list<dyn>.distinct(): list<dyn>', (list: unknown[]) => list.filter((item, i) => list.findIndex((other) => sameValue(other, item)) === i), SYNC);
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function decimalOf(value: string | bigint | number): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  const text = value.trim();
  const parsed = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new Error(`invalid_decimal: '${value}' is not a decimal number`);
  return parsed;
}

/** Equality without conversion between types (1 and 1.0 differ), as `distinct()` keeps values. */
function sameValue(a: unknown, b: unknown): boolean {
  return typeof a === typeof b && celEquals(a, b);
}

function sortValues(list: readonly unknown[]): unknown[] {
  const kind = (value: unknown) => (typeof value === 'bigint' || typeof value === 'number' ? 'number' : value instanceof Date ? 'date' : typeof value);
  const kinds = new Set(list.map(kind));
  if (kinds.size > 1) throw new Error(`sort() of a list of mixed types (${[...kinds].join(', ')})`);
  return [...list].sort((a, b) => {
    const x = a instanceof Date ? a.getTime() : a;
    const y = b instanceof Date ? b.getTime() : b;
    return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
  });
}

function durationOf(text: string): Duration {
  const parsed = parseDuration(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return Duration.fromMilliseconds(parsed.milliseconds);
}

/**
 * `cal.*`: each function takes the calendar key last; the forms without it exist only in a process with
 * `spec.calendar` (the environment's `cal` is then a `CalendarNamespace`, else a `KeyedCalendarNamespace`).
 */
function registerCalendarFunctions(env: Environment): void {
  env.registerType(CalendarNamespace.typeName, CalendarNamespace);
  env.registerType(KeyedCalendarNamespace.typeName, KeyedCalendarNamespace);
  const forms = [[CalendarNamespace.typeName, ''], [CalendarNamespace.typeName, ', string'], [KeyedCalendarNamespace.typeName, ', string']] as const;
  for (const [NS, tail] of forms) {
    const keyed = tail !== '';
    const pick = (ns: CalendarNamespace, args: unknown[]) => ns.calendar(keyed ? (args.at(-1) as string) : undefined);
    env.registerFunction(`${NS}.addWorkdays(${T}, int${tail}): ${T}`, (ns: CalendarNamespace, at: Date, days: bigint, ...rest: unknown[]) =>
      pick(ns, rest).addWorkdays(at, Number(days)), SYNC);
    env.registerFunction(`${NS}.addWorkingTime(${T}, ${D}${tail}): ${T}`, (ns: CalendarNamespace, at: Date, span: Duration, ...rest: unknown[]) =>
      pick(ns, rest).addWorkingTime(at, span.valueOf()), SYNC);
    env.registerFunction(`${NS}.isWorkday(${T}${tail}): bool`, (ns: CalendarNamespace, at: Date, ...rest: unknown[]) =>
      pick(ns, rest).isWorkday(at), SYNC);
    env.registerFunction(`${NS}.workdaysBetween(${T}, ${T}${tail}): int`, (ns: CalendarNamespace, from: Date, to: Date, ...rest: unknown[]) =>
      BigInt(pick(ns, rest).workdaysBetween(from, to)), SYNC);
    env.registerFunction(`${NS}.workingTimeBetween(${T}, ${T}${tail}): ${D}`, (ns: CalendarNamespace, from: Date, to: Date, ...rest: unknown[]) =>
      Duration.fromMilliseconds(workingTimeBetween(pick(ns, rest), from, to)), SYNC);
  }
}

function workingTimeBetween(calendar: WorkCalendar, from: Date, to: Date): number {
  if (calendar.workingTimeBetween === undefined) throw new Error('this calendar cannot measure working time');
  return calendar.workingTimeBetween(from, to);
}
