/**
 * What a guard of a process says, read from its CEL syntax: which stages and milestones it waits for, joined by
 * `&&`, `||` and `!`, and which values of a data field a `when` accepts. What the analyses cannot read is
 * `opaque` — they then assume it may go either way.
 */
import { parseSyntax, type PathSyntax, type Syntax } from '../cel/syntax.js';
import { BoundedCache } from '../json/bounded-cache.js';

export type Guard =
  | { op: 'and' | 'or'; items: Guard[] }
  | { op: 'not'; item: Guard }
  | { op: 'const'; value: boolean }
  | { op: 'stage'; id: string; state: 'completed' | 'active'; text: string }
  | { op: 'milestone'; id: string; text: string }
  | { op: 'opaque' };

const OPAQUE: Guard = { op: 'opaque' };
/** Guards read lately: a process's guards are read by several analyses, and an editor sends each edit of one. */
const cache = new BoundedCache<string, Guard>(4096);

/** The guard `source` as the stage analysis reads it. */
export function guardOf(source: string): Guard {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const tree = parseSyntax(source);
  return cache.set(source, tree === undefined ? OPAQUE : guardOfSyntax(tree, source));
}

function guardOfSyntax(node: Syntax, text: string): Guard {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { op: node.kind, items: node.operands.map((operand) => guardOfSyntax(operand, text)) };
    case 'not':
      return { op: 'not', item: guardOfSyntax(node.operand, text) };
    case 'literal':
      return typeof node.value === 'boolean' ? { op: 'const', value: node.value } : OPAQUE;
    case 'path':
      return atomOf(node, text.slice(node.start, node.end).replace(/\s+/g, ''));
    default:
      return OPAQUE;
  }
}

/** `stage.<id>.completed|active` and `milestone.<id>` (the id also as `['id']`). */
function atomOf(path: PathSyntax, text: string): Guard {
  const [id, state] = path.segments;
  if (path.root === 'stage' && path.segments.length === 2 && (state === 'completed' || state === 'active')) return { op: 'stage', id: id!, state, text };
  if (path.root === 'milestone' && path.segments.length === 1) return { op: 'milestone', id: id!, text };
  return OPAQUE;
}

/** The atoms of a guard, in the order written. */
export function atomsIn(guard: Guard): Extract<Guard, { op: 'stage' | 'milestone' | 'const' }>[] {
  switch (guard.op) {
    case 'and':
    case 'or':
      return guard.items.flatMap(atomsIn);
    case 'not':
      return atomsIn(guard.item);
    case 'opaque':
      return [];
    default:
      return [guard];
  }
}

/** A `when` that tests one data field: which values of the field make it hold. */
export interface FieldTest {
  /** `data.<dotted path>`. */
  field: string;
  holds(value: string | boolean): boolean;
}

/**
 * A `when` that tests one data field against string or boolean literals: `data.f == 'v'`, `'v' == data.f`,
 * `!=`, `data.f in ['a', 'b']`, `data.f`, `!data.f`, or an `||` of such tests of the same field. The field is
 * named by `.` selections only.
 */
export function fieldTestOf(when: string): FieldTest | undefined {
  const tree = parseSyntax(when);
  return tree === undefined ? undefined : fieldTest(tree);
}

function fieldTest(node: Syntax): FieldTest | undefined {
  if (node.kind === 'or') {
    const tests = node.operands.map(fieldTest);
    const first = tests[0];
    if (first === undefined || tests.some((test) => test === undefined || test.field !== first.field)) return undefined;
    return { field: first.field, holds: (value) => tests.some((test) => test!.holds(value)) };
  }
  if (node.kind === 'compare' && (node.op === '==' || node.op === '!=')) {
    const [field, literal] = dataField(node.left) !== undefined ? [dataField(node.left), literalOf(node.right)] : [dataField(node.right), literalOf(node.left)];
    if (field === undefined || literal === undefined) return undefined;
    return { field, holds: (value) => (value === literal) === (node.op === '==') };
  }
  if (node.kind === 'in' && node.container.kind === 'list') {
    const field = dataField(node.element);
    const values = node.container.items.map(literalOf);
    if (field === undefined || values.some((value) => value === undefined)) return undefined;
    return { field, holds: (value) => values.includes(value) };
  }
  const negated = node.kind === 'not';
  const field = dataField(negated ? node.operand : node);
  return field === undefined ? undefined : { field, holds: (value) => value === !negated };
}

function dataField(node: Syntax): string | undefined {
  return node.kind === 'path' && node.root === 'data' && node.dotted && node.segments.length > 0 ? `data.${node.segments.join('.')}` : undefined;
}

function literalOf(node: Syntax): string | boolean | undefined {
  return node.kind === 'literal' && (typeof node.value === 'string' || typeof node.value === 'boolean') ? node.value : undefined;
}
