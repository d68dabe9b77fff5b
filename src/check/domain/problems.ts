/**
 * The core's domain validators (compat-core-validators.md §1, §3–§14) as pure functions of an object's spec:
 * each returns the problems it finds, in the core's codes, at the node that is wrong. The core raises the first
 * problem of an object only; these functions go on after a problem wherever what follows does not depend on it,
 * so an author sees every mistake at once — and never one the core would not report once the earlier ones are
 * fixed. The rules of `check` (src/check/rules/) decide which objects they run on and report them.
 */
import { childPointer, fieldOf } from '../../json/pointer.js';

export interface DomainProblem {
  /** The core's code (`invalid_lifecycle_schema`, `invalid_rule_condition`, …). */
  code: string;
  /** JSON Pointer into the object's document: the intended place, not the core's quirky `details.path`. */
  pointer: string;
  /** The place as the core's messages name it: `lifecycleSchema.statuses[1].key`. */
  field: string;
  /** What is wrong, in the core's words where it has them. */
  problem: string;
  hint?: string;
  /** The key of a member rather than its value (an unknown member, a secret-like name). */
  atKey?: boolean;
  /** Characters inside the string value: where in it the mistake is (credential material in a text). */
  span?: { offset: number; length: number };
}

/** Collects the problems of one validator, all under one code unless said otherwise. */
export class Problems {
  readonly list: DomainProblem[] = [];

  constructor(readonly code: string) {}

  add(pointer: string, problem: string, options: { hint?: string; atKey?: boolean; code?: string; span?: DomainProblem['span'] } = {}): void {
    this.list.push({
      code: options.code ?? this.code,
      pointer,
      field: fieldOf(pointer),
      problem,
      ...(options.hint === undefined ? {} : { hint: options.hint }),
      ...(options.atKey ? { atKey: true } : {}),
      ...(options.span ? { span: options.span } : {}),
    });
  }

  /** The problems of another validator, kept under their own codes. */
  addAll(problems: readonly DomainProblem[]): void {
    this.list.push(...problems);
  }
}

/** The pointer of a member path under `base`: `at('/spec/x', 'a', 0)` → `/spec/x/a/0`. */
export function at(base: string, ...segments: (string | number)[]): string {
  return segments.reduce<string>((pointer, segment) => childPointer(pointer, segment), base);
}

/** A list of names as the core's messages print it: `['a', 'b']`. */
export function listed(names: readonly string[]): string {
  return `[${names.map((name) => `'${name}'`).join(', ')}]`;
}

/** True for a JSON integer that is not a boolean (the core's `isinstance(x, int) and not isinstance(x, bool)`). */
export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** True for a non-empty string of at most `max` characters. */
export function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && [...value].length <= max;
}
