/**
 * Decision tables of a process (DMN in spirit): each rule's `when` maps an input id to a cell — `-` (any), a
 * literal, a list `a,b`, or a range `[a..b)` / `(a..b]` over numbers or dates — and the hit policy picks the
 * result: `first` the first matching rule's `then`, `unique` the only one (more is an error), `collect` all.
 */
import { records } from './values.js';
import { isRecord } from '../json/guards.js';

export type DecisionOutcome =
  | { result: unknown; matched: number[] }
  | { error: { type: 'decision_no_match' | 'decision_not_unique'; detail: string } };

/** The inputs a table declares, with the expression each reads by default. */
export function tableInputs(table: Readonly<Record<string, unknown>>): { id: string; expr: unknown }[] {
  return records(table.inputs).map((input) => ({ id: String(input.id), expr: input.expr }));
}

export function decide(table: Readonly<Record<string, unknown>>, inputs: Readonly<Record<string, unknown>>): DecisionOutcome {
  const rules = records(table.rules);
  const matched: number[] = [];
  rules.forEach((rule, i) => {
    const when = isRecord(rule.when) ? rule.when : {};
    if (Object.entries(when).every(([id, cell]) => cellMatches(cell, inputs[id]))) matched.push(i);
  });
  const id = String(table.id);
  const policy = table.hitPolicy ?? 'first';
  if (policy === 'collect') return { result: matched.map((i) => rules[i]!.then), matched };
  if (matched.length === 0) {
    return { error: { type: 'decision_no_match', detail: `no rule of decision table '${id}' matches the inputs ${JSON.stringify(inputs)}` } };
  }
  if (policy === 'unique' && matched.length > 1) {
    return { error: { type: 'decision_not_unique', detail: `rules ${matched.map((i) => i + 1).join(', ')} of decision table '${id}' (hit policy unique) all match` } };
  }
  return { result: rules[matched[0]!]!.then, matched: [matched[0]!] };
}

const RANGE = /^([[(])\s*(.*?)\s*\.\.\s*(.*?)\s*([\])])$/;

export function cellMatches(cell: unknown, value: unknown): boolean {
  if (cell === '-') return true;
  if (typeof cell !== 'string') return equalScalar(cell, value);
  const range = RANGE.exec(cell.trim());
  if (range !== null) return inRange(range, value);
  if (cell.includes(',')) return cell.split(',').some((part) => equalScalar(parseLiteral(part.trim()), value));
  return equalScalar(parseLiteral(cell.trim()), value);
}

function inRange([, open, low, high, close]: RegExpExecArray, value: unknown): boolean {
  const at = comparable(value);
  if (at === undefined) return false;
  const from = low === '' ? -Infinity : comparable(parseLiteral(low!));
  const to = high === '' ? Infinity : comparable(parseLiteral(high!));
  if (from === undefined || to === undefined) return false;
  const aboveLow = open === '[' ? at >= from : at > from;
  const belowHigh = close === ']' ? at <= to : at < to;
  return aboveLow && belowHigh;
}

/** Numbers as they are; dates and instants as milliseconds. */
function comparable(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) {
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : at;
  }
  return undefined;
}

function parseLiteral(text: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text.replace(/^(['"])(.*)\1$/, '$2');
}

function equalScalar(cell: unknown, value: unknown): boolean {
  if (typeof cell === 'number' && typeof value === 'string' && value.trim() !== '') return cell === Number(value);
  return cell === value;
}
