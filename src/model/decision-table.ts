/**
 * The cells of a decision table read as the core reads them (`parse_condition`, compat-core-validators.md §2.11),
 * and the input space cut into atoms for coverage questions.
 *
 * A cell is absent, `null`, `""` or `-` (any value). Over a boolean input: `true`/`false` in any case, or a YAML
 * boolean. Over a text input: its text split at `,`, each part trimmed and stripped of one pair of quotes — a
 * range written over text is just a literal. Over a number, date or timestamp input: a range (`[a..b)`, `(a..b]`,
 * `]a..b[`: an end is closed only with `[` / `]` and a value, an empty end is open), a comparison (`<x`, `<=x`,
 * `>x`, `>=x`), or a comma list; numbers are finite floats, dates ISO dates (an open end moves by a day),
 * timestamps ISO date-times with an offset. An empty range is refused.
 *
 * For the analysis each input's values are cut into atoms such that every cell matches an atom entirely or not at
 * all: true and false; the texts written plus "any other value"; for ordered inputs each value written and each
 * range end, the values below the least and above the greatest, and the open intervals between neighbours (over
 * dates only gaps of more than one day). Numbers are continuous even when the input reads an integer field, and
 * no enum of a data field is used. A rule is then a box of atoms.
 */

export type InputType = 'string' | 'number' | 'boolean' | 'date' | 'timestamp';

type Literal = string | number | boolean;

export type Cell =
  | { any: true }
  | { values: Literal[] }
  | { range: { low: number; high: number; lowOpen: boolean; highOpen: boolean } };

export type CellProblem = { problem: string; hint?: string };

const RANGE = /^([[(\]])\s*(.*?)\s*\.\.\s*(.*?)\s*([\])[])$/;
const COMPARISON = /^(<=|>=|<|>)\s*(.+)$/;
const NUMBER = /^[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DAY = 86_400_000;

const HINTS: Readonly<Record<InputType, string>> = {
  string: 'a text cell is a value or a list a, b',
  boolean: 'write true or false',
  number: "write a number, a list 1, 2, a range [1..5) or a comparison >= 10",
  date: "write a date YYYY-MM-DD, a list, a range [2026-01-01..2026-02-01) or a comparison >= 2026-01-01",
  timestamp: 'write a date-time with its offset (2026-01-01T09:00:00Z), a list, a range or a comparison',
};

function isOrdered(type: InputType): boolean {
  return type === 'number' || type === 'date' || type === 'timestamp';
}

/** Whether a cell matches any value. */
export function isAnyCell(cell: unknown): boolean {
  return cell === undefined || cell === null || cell === '' || cell === '-';
}

/** A cell as its input's type reads it, or what is wrong with it. */
export function parseCell(cell: unknown, type: InputType): Cell | CellProblem {
  if (isAnyCell(cell)) return { any: true };
  const problem = (why: string): CellProblem => ({ problem: `'${String(cell)}' is not a condition of a ${type} input: ${why}`, hint: HINTS[type] });
  if (type === 'boolean') {
    if (typeof cell === 'boolean') return { values: [cell] };
    const text = String(cell).trim().toLowerCase();
    return text === 'true' || text === 'false' ? { values: [text === 'true'] } : problem('it is neither true nor false');
  }
  if (type === 'string') {
    if (typeof cell !== 'string') return { values: [String(cell)] };
    return { values: cell.split(',').map((part) => unquote(part.trim())) };
  }
  if (typeof cell !== 'string') {
    const value = orderedValue(String(cell), type);
    return value === undefined ? problem(`it is not ${typeName(type)}`) : { values: [value] };
  }
  const text = cell.trim();
  const range = RANGE.exec(text);
  if (range !== null) return rangeCell(range, type, problem);
  const comparison = COMPARISON.exec(text);
  if (comparison !== null) {
    const value = orderedValue(comparison[2]!.trim(), type);
    if (value === undefined) return problem(`'${comparison[2]!.trim()}' is not ${typeName(type)}`);
    const op = comparison[1]!;
    return op.startsWith('<')
      ? { range: closedDays({ low: -Infinity, high: value, lowOpen: true, highOpen: op === '<' }, type) }
      : { range: closedDays({ low: value, high: Infinity, lowOpen: op === '>', highOpen: true }, type) };
  }
  const values: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const value = orderedValue(part, type);
    if (value === undefined) return problem(`'${part}' is not ${typeName(type)}`);
    values.push(value);
  }
  return { values };
}

function unquote(text: string): string {
  return text.length >= 2 && (text[0] === "'" || text[0] === '"') && text.at(-1) === text[0] ? text.slice(1, -1) : text;
}

function rangeCell([, open, low, high, close]: RegExpExecArray, type: InputType, problem: (why: string) => CellProblem): Cell | CellProblem {
  const from = low === '' ? -Infinity : orderedValue(low!, type);
  const to = high === '' ? Infinity : orderedValue(high!, type);
  if (from === undefined) return problem(`'${low}' is not ${typeName(type)}`);
  if (to === undefined) return problem(`'${high}' is not ${typeName(type)}`);
  const range = closedDays({ low: from, high: to, lowOpen: open !== '[' || low === '', highOpen: close !== ']' || high === '' }, type);
  if (range.low > range.high || (range.low === range.high && (range.lowOpen || range.highOpen))) return problem('the range holds no value');
  return { range };
}

/** Over dates an open end moves by a day: `(d1..d5)` is `[d2..d4]`. */
function closedDays(range: { low: number; high: number; lowOpen: boolean; highOpen: boolean }, type: InputType) {
  if (type !== 'date') return range;
  const low = range.lowOpen && Number.isFinite(range.low) ? range.low + 1 : range.low;
  const high = range.highOpen && Number.isFinite(range.high) ? range.high - 1 : range.high;
  return { low, high, lowOpen: !Number.isFinite(low), highOpen: !Number.isFinite(high) };
}

/** Numbers as finite floats, dates as day numbers, timestamps (with an offset) as milliseconds. */
function orderedValue(text: string, type: InputType): number | undefined {
  const value = text.trim();
  if (type === 'number') {
    if (!NUMBER.test(value)) return undefined;
    const number = Number(value.replaceAll('_', ''));
    return Number.isFinite(number) ? number : undefined;
  }
  if (type === 'date') {
    const match = DATE.exec(value);
    if (match === null) return undefined;
    const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    return new Date(time).toISOString().slice(0, 10) === value ? time / DAY : undefined;
  }
  if (!TIMESTAMP.test(value)) return undefined;
  const time = Date.parse(value.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : time;
}

function typeName(type: InputType): string {
  return { string: 'text', number: 'a number', boolean: 'a boolean', date: 'a date (YYYY-MM-DD)', timestamp: 'a date-time with an offset' }[type];
}

type Atom =
  | { kind: 'value'; value: string | boolean }
  | { kind: 'other' }
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
export function atomsOf(type: InputType, cells: readonly unknown[]): Domain {
  const parsed = cells.map((cell) => parseCell(cell, type)).filter((cell): cell is Cell => !('problem' in cell));
  const atoms = isOrdered(type) ? orderedAtoms(type, parsed) : discreteAtoms(type, parsed);
  const matching = (cell: unknown): number[] => {
    const parsedCell = parseCell(cell, type);
    if ('problem' in parsedCell) return [];
    return atoms.flatMap((atom, i) => (atomMatches(atom, parsedCell) ? [i] : []));
  };
  return { atoms, matching, describe: (atom) => describeAtom(atoms[atom]!, type) };
}

function discreteAtoms(type: InputType, cells: readonly Cell[]): Atom[] {
  if (type === 'boolean') return [{ kind: 'value', value: true }, { kind: 'value', value: false }];
  const written = [...new Set(cells.flatMap((cell) => ('values' in cell ? cell.values.map(String) : [])))];
  return [...written.map((value): Atom => ({ kind: 'value', value })), { kind: 'other' }];
}

function orderedAtoms(type: InputType, cells: readonly Cell[]): Atom[] {
  const points = new Set<number>();
  for (const cell of cells) {
    if ('values' in cell) for (const value of cell.values) points.add(value as number);
    if ('range' in cell) for (const bound of [cell.range.low, cell.range.high]) if (Number.isFinite(bound)) points.add(bound);
  }
  const sorted = [...points].sort((a, b) => a - b);
  const atoms: Atom[] = [];
  let low = -Infinity;
  for (const point of [...sorted, Infinity]) {
    // Over dates two neighbouring days leave nothing between them.
    if (type !== 'date' || !Number.isFinite(low) || !Number.isFinite(point) || point - low > 1) atoms.push({ kind: 'between', low, high: point });
    if (point !== Infinity) atoms.push({ kind: 'point', at: point });
    low = point;
  }
  return atoms;
}

/** A value inside an open interval. */
function inside(low: number, high: number): number {
  if (low === -Infinity) return high === Infinity ? 0 : high - 1;
  if (high === Infinity) return low + 1;
  return (low + high) / 2;
}

function atomMatches(atom: Atom, cell: Cell): boolean {
  if ('any' in cell) return true;
  if (atom.kind === 'other') return false;
  if (atom.kind === 'value') return 'values' in cell && cell.values.some((value) => String(value) === String(atom.value));
  const at = atom.kind === 'point' ? atom.at : inside(atom.low, atom.high);
  if ('values' in cell) return atom.kind === 'point' && cell.values.includes(at);
  const { low, high, lowOpen, highOpen } = cell.range;
  return (lowOpen ? at > low : at >= low) && (highOpen ? at < high : at <= high);
}

function describeAtom(atom: Atom, type: InputType): string {
  const show = (value: number) => (type === 'date' ? new Date(value * DAY).toISOString().slice(0, 10) : type === 'timestamp' ? new Date(value).toISOString() : String(value));
  switch (atom.kind) {
    case 'value':
      return typeof atom.value === 'string' ? `'${atom.value}'` : String(atom.value);
    case 'other':
      return 'any other value';
    case 'point':
      return show(atom.at);
    case 'between':
      if (atom.low === -Infinity && atom.high === Infinity) return 'any value';
      if (atom.low === -Infinity) return `< ${show(atom.high)}`;
      if (atom.high === Infinity) return `> ${show(atom.low)}`;
      return type === 'date' ? show(atom.low + 1) : show(inside(atom.low, atom.high));
  }
}

/** The core's search budget per question: past it the analysis says it was cut short. */
export const SEARCH_BUDGET = 50_000;

/**
 * A point of `within` (atom indices per input) that no box matches, `undefined` when the boxes cover all of
 * it, or 'truncated' when the search ran out of budget. A box lists, per input, the atoms its rule matches.
 */
export function uncoveredPoint(boxes: readonly (readonly (readonly number[])[])[], within: readonly (readonly number[])[]): Point | undefined | 'truncated' {
  if (within.some((atoms) => atoms.length === 0)) return undefined;
  let budget = SEARCH_BUDGET;
  const search = (rules: readonly number[], d: number, prefix: Point): Point | undefined | 'truncated' => {
    if (rules.length === 0) return [...prefix, ...within.slice(d).map((atoms) => atoms[0]!)];
    if (d === within.length) return undefined;
    if (--budget < 0) return 'truncated';
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
