/**
 * The small languages of work rules and task types, which are not CEL: a rule's `condition` (JSON-logic-like
 * `and/or/not/exists/in/eq/ne/lt/le/gt/ge` over `{var: path}` and `{const}`), its `{{path}}` templates, and the
 * `$.path` expressions of task-type outcomes (`$.task.customFields.depot!`, where `!` makes the value required).
 */
import { valueAt } from './values.js';
import { isRecord } from '../json/guards.js';

/** A rule condition's truth over the context (payload, settings, task, event, skill). */
export function conditionHolds(condition: unknown, context: Record<string, unknown>): boolean {
  if (condition === undefined || condition === true) return true;
  if (condition === false || !isRecord(condition)) return false;
  const [op, args] = Object.entries(condition)[0] ?? [];
  const items = Array.isArray(args) ? args : [args];
  switch (op) {
    case 'and':
      return items.every((item) => conditionHolds(item, context));
    case 'or':
      return items.some((item) => conditionHolds(item, context));
    case 'not':
      return !conditionHolds(items[0], context);
    case 'exists': {
      const value = typeof args === 'string' ? valueAt(context, args) : operand(args, context);
      return value !== undefined && value !== null;
    }
    case 'in': {
      const [needle, haystack] = items.map((item) => operand(item, context));
      if (Array.isArray(haystack)) return haystack.some((candidate) => same(candidate, needle));
      return typeof haystack === 'string' && typeof needle === 'string' && haystack.includes(needle);
    }
    case 'eq':
    case 'ne': {
      const [a, b] = items.map((item) => operand(item, context));
      return same(a, b) === (op === 'eq');
    }
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      const [a, b] = items.map((item) => operand(item, context));
      if (a === undefined || a === null || b === undefined || b === null) return false;
      const [x, y] = [comparable(a), comparable(b)];
      return op === 'lt' ? x < y : op === 'le' ? x <= y : op === 'gt' ? x > y : x >= y;
    }
    case 'var':
      return Boolean(operand(condition, context));
    default:
      return false;
  }
}

function operand(value: unknown, context: Record<string, unknown>): unknown {
  if (isRecord(value) && typeof value.var === 'string') return valueAt(context, value.var);
  if (isRecord(value) && 'const' in value) return value.const;
  if (isRecord(value)) return conditionHolds(value, context);
  return value;
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'string') return a === Number(b);
  if (typeof a === 'string' && typeof b === 'number') return Number(a) === b;
  return a === b;
}

function comparable(value: unknown): number | string {
  if (typeof value === 'number') return value;
  const number = Number(value);
  return typeof value === 'string' && value.trim() !== '' && !Number.isNaN(number) ? number : String(value);
}

const MUSTACHE = /\{\{\s*([^}]+?)\s*\}\}/g;

/** A `{{path}}` template rendered over the context; a missing value renders empty. */
export function renderTemplate(text: string, context: Record<string, unknown>): string {
  return text.replace(MUSTACHE, (_, path: string) => textOf(valueAt(context, path)));
}

/** Renders every string inside a value (objects and arrays of templates). */
export function renderDeep(value: unknown, context: Record<string, unknown>): unknown {
  if (typeof value === 'string') return renderTemplate(value, context);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, context));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, context)]));
  return value;
}

const DOLLAR_PATH = /\$((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(!?)/g;

export class MissingValue extends Error {
  constructor(readonly path: string) {
    super(`$${path} is required and has no value`);
  }
}

/**
 * A `$.path` value: a string that is one path gives the value itself (objects and lists too); paths inside
 * text are interpolated. `!` after a path makes a missing value an error.
 */
export function resolvePaths(value: unknown, context: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => resolvePaths(item, context));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolvePaths(v, context)]));
  if (typeof value !== 'string') return value;
  const whole = /^\$((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(!?)$/.exec(value);
  if (whole !== null) return pathValue(whole[1]!, whole[2] === '!', context);
  return value.replace(DOLLAR_PATH, (_, path: string, required: string) => textOf(pathValue(path, required === '!', context)));
}

function pathValue(path: string, required: boolean, context: Record<string, unknown>): unknown {
  const value = valueAt(context, path.slice(1));
  if (required && (value === undefined || value === null)) throw new MissingValue(path);
  return value;
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
