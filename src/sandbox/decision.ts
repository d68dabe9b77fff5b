/**
 * Decision tables at run time, as the core's `decision_table.py` evaluates them. Each input has a type —
 * declared (`string`, `number`, `boolean`, `date`, `timestamp`), else that of its expression's CEL type, else
 * guessed from its cells — and each cell of a rule tests the input's value: `-`, an empty cell or no cell
 * matches anything; a boolean is `true`/`false`; a string a literal or a comma list; a number, date or
 * timestamp a literal, a list, a range (`[a..b)`, `(..b]`, `]a..`) or a comparison (`<x`, `>=x`). A null value,
 * or one that does not convert to the input's type, matches only `-`. Hit policies: `first`, `unique` (more
 * than one match is `decision_ambiguous`), `collect` (`{items: [...]}`, possibly empty); no match of the first
 * two is `decision_no_match`.
 */
import { records } from './values.js';
import { isRecord } from '../json/guards.js';
import type { Problem } from './instance.js';

export type InputType = 'string' | 'number' | 'boolean' | 'date' | 'timestamp';

export type DecisionOutcome = { result: unknown; matched: number[] } | { error: Problem };

export interface TableInput {
  id: string;
  expr?: string;
  type?: InputType;
}

const TYPES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'date', 'timestamp']);

/** The inputs a table declares: id, default expression, declared type. */
export function tableInputs(table: Readonly<Record<string, unknown>>): TableInput[] {
  return records(table.inputs).map((input) => ({
    id: String(input.id),
    ...(typeof input.expr === 'string' ? { expr: input.expr } : {}),
    ...(typeof input.type === 'string' && TYPES.has(input.type) ? { type: input.type as InputType } : {}),
  }));
}

/** An input's type when it declares none: its expression's CEL type, else what its cells look like. */
export function inferredType(celType: string | undefined, cells: readonly unknown[]): InputType {
  if (celType === 'string') return 'string';
  if (celType === 'int' || celType === 'uint' || celType === 'double') return 'number';
  if (celType === 'bool') return 'boolean';
  if (celType === 'timestamp') return 'timestamp';
  const given = cells.filter((cell) => cell !== undefined && cell !== '-' && cell !== '');
  if (given.length > 0 && given.every((cell) => typeof cell === 'boolean')) return 'boolean';
  if (given.length > 0 && given.every((cell) => typeof cell === 'number')) return 'number';
  return 'string';
}

/** The cells of one input over the rules of a table. */
export function cellsOf(table: Readonly<Record<string, unknown>>, input: string): unknown[] {
  return records(table.rules).map((rule) => (isRecord(rule.when) ? rule.when[input] : undefined));
}

export function decide(table: Readonly<Record<string, unknown>>, values: Readonly<Record<string, unknown>>, types: Readonly<Record<string, InputType>>): DecisionOutcome {
  const rules = records(table.rules);
  const matched: number[] = [];
  rules.forEach((rule, index) => {
    const when = isRecord(rule.when) ? rule.when : {};
    if (Object.keys(types).every((id) => cellMatches(when[id], values[id], types[id]!))) matched.push(index);
  });
  const id = String(table.id);
  const policy = table.hitPolicy ?? 'first';
  if (policy === 'collect') return { result: { items: matched.map((i) => rules[i]!.then ?? {}) }, matched };
  if (matched.length === 0) {
    return { error: { type: 'decision_no_match', status: 422, detail: `no rule of decision table '${id}' matches the inputs ${JSON.stringify(values)}` } };
  }
  if (policy === 'unique' && matched.length > 1) {
    return { error: { type: 'decision_ambiguous', status: 422, detail: `rules ${matched.join(', ')} of decision table '${id}' (hit policy unique) all match the inputs ${JSON.stringify(values)}` } };
  }
  return { result: rules[matched[0]!]!.then ?? {}, matched: [matched[0]!] };
}

/** Whether a cell matches an input value of a type. */
export function cellMatches(cell: unknown, value: unknown, type: InputType): boolean {
  if (cell === undefined || cell === null || cell === '-' || cell === '') return true;
  const text = String(cell).trim();
  if (text === '-' || text === '') return true;
  const converted = convert(value, type);
  if (converted === undefined) return false;
  if (type === 'boolean') return text.toLowerCase() === String(converted);
  if (type === 'string') return text.split(',').some((part) => unquote(part.trim()) === converted);
  return splitParts(text).some((part) => orderedMatches(part, converted as number, type));
}

/** The input value in its type: a string, a boolean, a number, a date's day or a timestamp's instant; undefined when it does not convert. */
function convert(value: unknown, type: InputType): string | number | boolean | undefined {
  if (value === null || value === undefined) return undefined;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'date':
      return typeof value === 'string' ? dayOf(value) : undefined;
    case 'timestamp':
      return typeof value === 'string' ? instantOf(value) : undefined;
  }
}

/** Comma-separated parts, keeping the commas inside a range's brackets out of it (ranges hold none). */
function splitParts(text: string): string[] {
  return text.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

const COMPARISON = /^(<=|>=|<|>)\s*(.+)$/;

function orderedMatches(part: string, value: number, type: InputType): boolean {
  const comparison = COMPARISON.exec(part);
  if (comparison !== null) {
    const bound = literal(comparison[2]!, type);
    if (bound === undefined) return false;
    switch (comparison[1]) {
      case '<': return value < bound;
      case '<=': return value <= bound;
      case '>': return value > bound;
      default: return value >= bound;
    }
  }
  if (part.includes('..')) return inRange(part, value, type);
  const single = literal(part, type);
  return single !== undefined && single === value;
}

/** `[a..b)`, `(a..b]`, `[a..)`, `(..b]`, `]a..`, `..b[`: an empty end is open; dates compare as whole days. */
function inRange(part: string, value: number, type: InputType): boolean {
  let text = part;
  let lowInclusive = true;
  let highInclusive = true;
  if (/^[[(\]]/.test(text)) {
    lowInclusive = text[0] === '[';
    text = text.slice(1);
  }
  if (/[\])[]$/.test(text)) {
    highInclusive = text.at(-1) === ']';
    text = text.slice(0, -1);
  }
  const [lowText, highText] = text.split('..').map((end) => end.trim());
  const low = lowText === '' || lowText === undefined ? undefined : literal(lowText, type);
  const high = highText === '' || highText === undefined ? undefined : literal(highText, type);
  if ((lowText !== '' && low === undefined) || (highText !== '' && high === undefined)) return false;
  if (low !== undefined && (lowInclusive ? value < low : value <= low)) return false;
  if (high !== undefined && (highInclusive ? value > high : value >= high)) return false;
  return true;
}

function literal(text: string, type: InputType): number | undefined {
  const bare = unquote(text.trim());
  if (type === 'number') {
    const number = Number(bare);
    return bare !== '' && Number.isFinite(number) ? number : undefined;
  }
  return type === 'date' ? dayOf(bare) : instantOf(bare);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** A date (or the date part of a timestamp) as a day number. */
function dayOf(text: string): number | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 86_400_000;
}

/** A timestamp with an offset as its instant. */
function instantOf(text: string): number | undefined {
  if (!/T.*(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

function unquote(text: string): string {
  return text.replace(/^(['"])(.*)\1$/, '$2');
}
