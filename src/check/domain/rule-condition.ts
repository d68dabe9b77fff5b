/**
 * The condition language of work rules (compat-core-validators.md §3.3) — a JSON operator grammar, not CEL —
 * and the `{{ path }}` placeholders of their templates. Approval preconditions (§1.5) and notification
 * conditions (§14) speak the same language over other roots.
 */
import { isRecord } from '../../json/guards.js';
import { childPointer } from '../../json/pointer.js';
import { listed, Problems, type DomainProblem } from './problems.js';

/** Roots a rule's condition and interpretation inputs read. */
export const BASE_ROOTS = ['trigger', 'payload', 'goal', 'task', 'settings'] as const;

const OPERATORS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in', 'exists']);
const BINARY: ReadonlySet<string> = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in']);
const MAX_BRANCHES = 50;
const MAX_LIST = 50;
const MAX_NODES = 256;
const MAX_DEPTH = 16;
const MAX_SEGMENTS = 16;
const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `path` is not a path over `roots`, or undefined when it is one. */
export function pathProblem(path: unknown, roots: readonly string[]): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'a path is a non-empty string';
  const [root = '', ...rest] = path.split('.');
  if (!roots.includes(root)) return `'${path}' starts with an unknown root; allowed here: ${listed(roots)}`;
  if (rest.length > MAX_SEGMENTS || rest.some((segment) => !SEGMENT.test(segment))) return `'${path}' is not a valid path`;
  return undefined;
}

/**
 * The problems of a condition at `pointer` whose paths may start with `roots`, under `code`. The core stops at
 * the first; here every operator is looked at, and the budgets (nodes, depth) are reported once.
 */
export function conditionProblems(condition: unknown, pointer: string, roots: readonly string[], code = 'invalid_rule_condition'): DomainProblem[] {
  if (condition === undefined || condition === null) return [];
  const problems = new Problems(code);
  let nodes = 0;
  let tooDeep = false;
  const node = (value: unknown, at: string, depth: number): void => {
    nodes += 1;
    if (depth > MAX_DEPTH) {
      if (!tooDeep) problems.add(at, `the condition is nested deeper than ${MAX_DEPTH}`);
      tooDeep = true;
      return;
    }
    if (typeof value === 'boolean') return;
    if (!isRecord(value) || Object.keys(value).length !== 1) {
      problems.add(at, 'an expression is true, false or a single-operator object');
      return;
    }
    const [operator, args] = Object.entries(value)[0]!;
    const here = childPointer(at, operator);
    if (!OPERATORS.has(operator)) {
      problems.add(here, `unknown operator '${operator}'`, { atKey: true, hint: `operators: ${[...OPERATORS].join(', ')}` });
      return;
    }
    if (operator === 'and' || operator === 'or') {
      if (!Array.isArray(args) || args.length === 0 || args.length > MAX_BRANCHES) problems.add(here, `'${operator}' takes a list of 1 to ${MAX_BRANCHES} expressions`);
      else args.forEach((item, index) => node(item, childPointer(here, index), depth + 1));
    } else if (operator === 'not') {
      node(args, here, depth + 1);
    } else if (operator === 'exists') {
      const problem = pathProblem(args, roots);
      if (problem) problems.add(here, problem);
    } else if (BINARY.has(operator)) {
      if (!Array.isArray(args) || args.length !== 2) problems.add(here, `'${operator}' takes exactly two operands`);
      else args.forEach((item, index) => operand(item, childPointer(here, index), depth + 1));
    }
  };
  const operand = (value: unknown, at: string, depth: number): void => {
    if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
      nodes += 1;
      return;
    }
    if (Array.isArray(value)) {
      nodes += 1;
      if (value.length > MAX_LIST) problems.add(at, `a list operand holds at most ${MAX_LIST} items`);
      else value.forEach((item, index) => operand(item, childPointer(at, index), depth + 1));
      return;
    }
    if (isRecord(value) && Object.keys(value).length === 1 && 'var' in value) {
      nodes += 1;
      const problem = pathProblem(value.var, roots);
      if (problem) problems.add(childPointer(at, 'var'), problem);
      return;
    }
    if (isRecord(value) && Object.keys(value).length === 1 && 'const' in value) {
      nodes += 1;
      return;
    }
    node(value, at, depth);
  };
  node(condition, pointer, 1);
  if (nodes > MAX_NODES) problems.add(pointer, `the condition has ${nodes} nodes, more than ${MAX_NODES}`);
  return problems.list;
}

const PLACEHOLDER = /\{\{(.*?)\}\}/g;

/** Every `{{ path }}` placeholder in the strings under `value` whose path is not one over `roots`. */
export function placeholderProblems(value: unknown, pointer: string, roots: readonly string[], code: string): DomainProblem[] {
  const problems = new Problems(code);
  const visit = (node: unknown, at: string): void => {
    if (typeof node === 'string') {
      for (const match of node.matchAll(PLACEHOLDER)) {
        const problem = pathProblem(match[1]!.trim(), roots);
        if (problem) problems.add(at, `placeholder ${match[0]}: ${problem}`);
      }
    } else if (Array.isArray(node)) node.forEach((item, index) => visit(item, childPointer(at, index)));
    else if (isRecord(node)) for (const [key, item] of Object.entries(node)) visit(item, childPointer(at, key));
  };
  visit(value, pointer);
  return problems.list;
}

/** True when the whole string is one `{{ … }}` placeholder. */
export function isWholePlaceholder(value: string): boolean {
  return /^\s*\{\{[^{}]*\}\}\s*$/.test(value);
}

/** True when the string holds a placeholder. */
export function hasPlaceholder(value: string): boolean {
  return /\{\{.*?\}\}/.test(value);
}
