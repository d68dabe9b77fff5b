/**
 * Evaluating an expression of the `cp/1` profile, for the package test engine: JSON in, JSON out.
 *
 * Bindings are plain JSON (`{data: {...}, event: {...}, step: {result: ...}}`); they become CEL values by the shapes
 * of the environment — integers of `int` fields become BigInt, date-time strings of `timestamp` fields become
 * instants, objects become the environment's object types. The result comes back as JSON: integers as numbers,
 * timestamps as ISO 8601 text, durations as ISO 8601 durations.
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CalendarNamespace, KeyedCalendarNamespace, type CalendarLookup } from './calendar.js';
import { compiledExpression } from './check.js';
import { formatDuration, parseDuration } from './duration.js';
import type { CelEnvironment, ObjectType } from './environment.js';
import type { InstallVariable } from './install-variables.js';
import type { CelShape } from './types.js';
import { isRecord } from '../json/guards.js';

export interface EvaluateOptions {
  variables?: Readonly<Record<string, InstallVariable>>;
  /** Calendars for `cal.*`, by key. */
  calendars?: CalendarLookup;
  /** The calendar `cal.*` uses without a calendar argument (the process's `spec.calendar`). */
  defaultCalendar?: string;
}

/**
 * An expression that cannot give a value: `expression_error` at run time (an unset field read without `has()`,
 * a division by zero, no such calendar), or the code of the check finding that makes it unusable.
 */
export class CelEvaluationError extends Error {
  constructor(readonly code: string, message: string, readonly hint?: string) {
    super(message);
    this.name = 'CelEvaluationError';
  }
}

/** The value of an expression with the given bindings. Throws `CelEvaluationError`. */
export function evaluate(
  env: CelEnvironment,
  source: string,
  bindings: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): unknown {
  const { result, program } = compiledExpression(env, source, { variables: options.variables });
  if (program === undefined) {
    const first = result.diagnostics[0];
    throw new CelEvaluationError(first.code, first.message, first.hint);
  }
  const context: Record<string, unknown> = {};
  for (const [name, shape] of env.variables) {
    if (Object.hasOwn(bindings, name) && bindings[name] !== undefined) context[name] = toCel(bindings[name], shape, env.objectTypes);
  }
  if (env.profile.kind === 'process' && !env.variables.has('cal')) {
    const Namespace = env.profile.calendar === true ? CalendarNamespace : KeyedCalendarNamespace;
    context.cal = new Namespace(options.calendars, options.defaultCalendar);
  }
  try {
    return toJson(program(context));
  } catch (error) {
    const unset = (error as { code?: string }).code === 'no_such_key';
    throw new CelEvaluationError('expression_error', runtimeMessage(error),
      unset ? 'a field may be unset: guard the read with has(…) or read it with .?…orValue(…)' : undefined);
  }
}

function runtimeMessage(error: unknown): string {
  const e = error as { summary?: string; message?: string; code?: string };
  if (e.code === 'unknown_variable') return `${e.summary ?? e.message} — the caller bound no value for it`;
  return e.summary ?? e.message ?? String(error);
}

/** A JSON value as the CEL value of a shape. Values that do not fit stay as they are: the library reports them. */
function toCel(value: unknown, shape: CelShape, objectTypes: ReadonlyMap<CelShape, ObjectType>): unknown {
  if (value === null || value === undefined) return value;
  switch (shape.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
    case 'timestamp':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value) : value;
    case 'duration': {
      const parsed = typeof value === 'string' ? parseDuration(value) : undefined;
      return parsed === undefined || 'error' in parsed ? value : Duration.fromMilliseconds(parsed.milliseconds);
    }
    case 'list':
      return Array.isArray(value) ? value.map((item) => toCel(item, shape.items, objectTypes)) : value;
    case 'map':
      return isRecord(value) ? mapValues(value, () => shape.values, objectTypes) : value;
    case 'object': {
      if (!isRecord(value)) return value;
      // Fields the schema does not declare are dropped, as the core's activation drops them.
      const fieldValues = mapValues(value, (name) => shape.fields.get(name), objectTypes);
      const type = objectTypes.get(shape);
      return type === undefined ? fieldValues : type.make(fieldValues);
    }
    default:
      return value;
  }
}

/** Own fields of a JSON object converted by `shapeOf(name)`; names with no shape are dropped (object types are closed). */
function mapValues(
  value: Record<string, unknown>,
  shapeOf: (name: string) => CelShape | undefined,
  objectTypes: ReadonlyMap<CelShape, ObjectType>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const shape = shapeOf(name);
    if (shape === undefined || name === '__proto__') continue;
    out[name] = toCel(field, shape, objectTypes);
  }
  return out;
}


/** A CEL value as JSON. */
function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Duration) return formatDuration(value.valueOf());
  if (Array.isArray(value) || value instanceof Set) return [...value].map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (value instanceof Optional) return value.hasValue() ? toJson(value.value()) : null;
  if (value instanceof UnsignedInt) return Number(value.value);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  return value;
}
