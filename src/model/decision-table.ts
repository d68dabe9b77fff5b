/**
 * The cells of a decision table (the reference's `decisionTable`: "'-' (any), a literal, a list 'a,b', a range
 * '[a..b)'") read against the type of their input, and the input space cut into atoms for coverage questions.
 *
 * The values an input can take are cut into finitely many atoms such that every cell of the table matches an
 * atom entirely or not at all: the enum values of a text field (or the literals written, plus "any other
 * text"), true and false, or — for numbers, dates and timestamps — each point written in a cell and the open
 * intervals between them (intervals holding no integer are dropped for integer fields; dates count in days).
 * A rule is then a box of atoms, and "is every input matched?" is a search for a point outside every box.
 */

/** `integer` is a number input read from an integer field of the data. */
export type InputType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp';

type Literal = string | number | boolean;

export type Cell =
  | { any: true }
  | { values: Literal[] }
  | { range: { low: number; high: number; lowOpen: boolean; highOpen: boolean } };

export type CellProblem = { problem: string; hint?: string };

const RANGE = /^([[(])\s*(.*?)\s*\.\.\s*(.*?)\s*([\])])$/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
const DAY = 86_400_000;

function isOrdered(type: InputType): boolean {
  return type === 'number' || type === 'integer' || type === 'date' || type === 'timestamp';
}

/** A cell as its input's type reads it, or what is wrong with it. */
export function parseCell(cell: unknown, type: InputType, values?: readonly string[]): Cell | CellProblem {
  if (cell === '-') return { any: true };
  if (typeof cell === 'number' || typeof cell === 'boolean') return literalCell(cell, type, values);
  if (typeof cell !== 'string') return { problem: "a cell is '-', a value, a list a,b or a range [a..b)" };
  const text = cell.trim();
  const range = RANGE.exec(text);
  if (range !== null) return rangeCell(range, type);
  const parts = text.includes(',') ? text.split(',').map((part) => part.trim()) : [text];
  const literals: Literal[] = [];
  for (const part of parts) {
    if (part === '') return { problem: `'${cell}' has an empty value in its list` };
    const parsed = literalCell(unquote(part), type, values);
    if ('problem' in parsed) return parsed;
    literals.push(...(parsed as { values: Literal[] }).values);
  }
  return { values: literals };
}

function unquote(text: string): Literal {
  if (NUMBER.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text.replace(/^(['"])(.*)\1$/, '$2');
}

function literalCell(value: Literal, type: InputType, values?: readonly string[]): { values: Literal[] } | CellProblem {
  const point = orderedValue(value, type);
  if (isOrdered(type)) return point === undefined ? { problem: `'${String(value)}' is not ${typeName(type)}` } : { values: [point] };
  if (type === 'boolean') return typeof value === 'boolean' ? { values: [value] } : { problem: `'${String(value)}' is not true or false` };
  const text = String(value);
  if (values !== undefined && !values.includes(text)) {
    return { problem: `'${text}' is none of the values the field takes (${values.join(', ')})`, ...hintAmong(text, values) };
  }
  return { values: [text] };
}

function hintAmong(text: string, values: readonly string[]): { hint?: string } {
  const close = values.find((value) => value.toLowerCase() === text.toLowerCase());
  return close === undefined ? {} : { hint: `did you mean '${close}'?` };
}

function rangeCell([, open, low, high, close]: RegExpExecArray, type: InputType): Cell | CellProblem {
  if (!isOrdered(type)) return { problem: `a range needs a number, date or timestamp input, and this input is ${typeName(type)}` };
  const from = low === '' ? -Infinity : orderedValue(unquote(low!), type);
  const to = high === '' ? Infinity : orderedValue(unquote(high!), type);
  if (from === undefined) return { problem: `'${low}' is not ${typeName(type)}` };
  if (to === undefined) return { problem: `'${high}' is not ${typeName(type)}` };
  const lowOpen = open === '(';
  const highOpen = close === ')';
  if (from > to || (from === to && (lowOpen || highOpen))) return { problem: `the range ${open}${low}..${high}${close} holds no value` };
  return { range: { low: from, high: to, lowOpen, highOpen } };
}

/** Numbers as they are, dates as day numbers, timestamps as milliseconds. */
function orderedValue(value: Literal, type: InputType): number | undefined {
  if (type === 'number' || type === 'integer') return typeof value === 'number' ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (type === 'date' && DATE.test(value) && !Number.isNaN(Date.parse(value))) return Date.parse(value) / DAY;
  if (type === 'timestamp' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value))) return Date.parse(value);
  return undefined;
}

function typeName(type: InputType): string {
  return { string: 'text', number: 'a number', integer: 'an integer', boolean: 'a boolean', date: 'a date (YYYY-MM-DD)', timestamp: 'an RFC 3339 timestamp' }[type];
}

type Atom =
  | { kind: 'value'; value: string | boolean }
  | { kind: 'other'; except: readonly string[] }
  | { kind: 'point'; at: number }
  | { kind: 'between'; low: number; high: number };

/** The atoms of one input, the atoms a cell matches, and how a message names an atom. */
export interface Domain {
  atoms: readonly Atom[];
  /** Indices of the atoms a (valid) cell matches; a missing cell matches every atom. */
  matching(cell: unknown): number[];
  describe(atom: number): string;
}

/** One atom index per input: a concrete combination of input values. */
export type Point = number[];

/** The atoms of an input of `type` for the cells written in its column. */
export function atomsOf(type: InputType, values: readonly string[] | undefined, cells: readonly unknown[]): Domain {
  const parsed = cells.map((cell) => (cell === undefined ? ({ any: true } as Cell) : parseCell(cell, type, values))).filter((cell): cell is Cell => !('problem' in cell));
  const atoms = isOrdered(type) ? orderedAtoms(type, parsed) : discreteAtoms(type, values, parsed);
  const matching = (cell: unknown): number[] => {
    const parsedCell = cell === undefined ? ({ any: true } as Cell) : parseCell(cell, type, values);
    if ('problem' in parsedCell) return [];
    return atoms.flatMap((atom, i) => (atomMatches(atom, parsedCell) ? [i] : []));
  };
  return { atoms, matching, describe: (atom) => describeAtom(atoms[atom]!, type) };
}

function discreteAtoms(type: InputType, values: readonly string[] | undefined, cells: readonly Cell[]): Atom[] {
  if (type === 'boolean') return [{ kind: 'value', value: true }, { kind: 'value', value: false }];
  if (values !== undefined) return values.map((value) => ({ kind: 'value', value }));
  const written = [...new Set(cells.flatMap((cell) => ('values' in cell ? cell.values.map(String) : [])))];
  return [...written.map((value): Atom => ({ kind: 'value', value })), { kind: 'other', except: written }];
}

function orderedAtoms(type: InputType, cells: readonly Cell[]): Atom[] {
  const points = new Set<number>();
  for (const cell of cells) {
    if ('values' in cell) for (const value of cell.values) points.add(value as number);
    if ('range' in cell) for (const bound of [cell.range.low, cell.range.high]) if (Number.isFinite(bound)) points.add(bound);
  }
  const sorted = [...points].sort((a, b) => a - b);
  const whole = type === 'integer' || type === 'date';
  const atoms: Atom[] = [];
  let low = -Infinity;
  for (const point of [...sorted, Infinity]) {
    if (!whole || Math.floor(low) + 1 < point) atoms.push({ kind: 'between', low, high: point });
    if (point !== Infinity && (!whole || Number.isInteger(point))) atoms.push({ kind: 'point', at: point });
    low = point;
  }
  return atoms;
}

/** A value inside an open interval: an integer one where only integers count. */
function inside(low: number, high: number, whole: boolean): number {
  if (whole) return low === -Infinity ? (high === Infinity ? 0 : Math.ceil(high) - 1) : Math.floor(low) + 1;
  if (low === -Infinity) return high === Infinity ? 0 : high - 1;
  if (high === Infinity) return low + 1;
  return (low + high) / 2;
}

function atomMatches(atom: Atom, cell: Cell): boolean {
  if ('any' in cell) return true;
  if (atom.kind === 'other') return false;
  if (atom.kind === 'value') return 'values' in cell && cell.values.some((value) => String(value) === String(atom.value));
  const at = atom.kind === 'point' ? atom.at : inside(atom.low, atom.high, false);
  if ('values' in cell) return atom.kind === 'point' && cell.values.includes(at);
  const { low, high, lowOpen, highOpen } = cell.range;
  return (lowOpen ? at > low : at >= low) && (highOpen ? at < high : at <= high);
}

function describeAtom(atom: Atom, type: InputType): string {
  const show = (value: number) => (type === 'date' ? new Date(value * DAY).toISOString().slice(0, 10) : type === 'timestamp' ? new Date(value).toISOString() : String(value));
  switch (atom.kind) {
    case 'value':
      return typeof atom.value === 'string' ? `= '${atom.value}'` : `= ${atom.value}`;
    case 'other':
      return atom.except.length === 0 ? '= any value' : `= a value other than ${atom.except.map((v) => `'${v}'`).join(', ')}`;
    case 'point':
      return `= ${show(atom.at)}`;
    case 'between': {
      const whole = type === 'integer' || type === 'date';
      const example = `= ${show(inside(atom.low, atom.high, whole))}`;
      if (atom.low === -Infinity && atom.high === Infinity) return example;
      if (atom.low === -Infinity) return `${example} (below ${show(atom.high)})`;
      if (atom.high === Infinity) return `${example} (above ${show(atom.low)})`;
      return `${example} (between ${show(atom.low)} and ${show(atom.high)})`;
    }
  }
}

/** The search gives up past this many steps and says nothing: a table that large is beyond a quick answer. */
const SEARCH_BUDGET = 100_000;

/**
 * A point of `within` (atom indices per input) that no box matches, `undefined` when the boxes cover all of
 * it, or 'undecided' when the search ran out of budget. A box lists, per input, the atoms its rule matches.
 */
export function uncoveredPoint(boxes: readonly (readonly (readonly number[])[])[], within: readonly (readonly number[])[]): Point | undefined | 'undecided' {
  if (within.some((atoms) => atoms.length === 0)) return undefined;
  let budget = SEARCH_BUDGET;
  const search = (rules: readonly number[], d: number, prefix: Point): Point | undefined | 'undecided' => {
    if (rules.length === 0) return [...prefix, ...within.slice(d).map((atoms) => atoms[0]!)];
    if (d === within.length) return undefined;
    if (--budget < 0) return 'undecided';
    const tried = new Set<string>();
    for (const atom of within[d]!) {
      const matching = rules.filter((rule) => boxes[rule]![d]!.includes(atom));
      const key = matching.join(',');
      if (tried.has(key)) continue;
      tried.add(key);
      const found = search(matching, d + 1, [...prefix, atom]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return search(boxes.map((_, i) => i), 0, []);
}
