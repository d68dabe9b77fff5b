/**
 * The shape of an expression without its types: a small tree over the CEL library's parse, for analyses that
 * reason about what an expression *says* (which stage a guard waits for, which values of a field a `when`
 * accepts, which aggregates a view calls, which fields it reads) rather than what it gives. Nothing here
 * evaluates or type-checks.
 */
import { Environment } from '@marcbachmann/cel-js';
import { substituteVariables } from './install-variables.js';

interface Span {
  /** Offsets into the text as written (before `${NAME}` substitution). */
  start: number;
  end: number;
}

/** How a path segment is reached: `.name`, `.?name`, `['name']` or `[?'name']`. */
export type Selection = '.' | '.?' | '[]' | '[?]';

/** A name followed by field selections and literal-key indexes: `stage.review.completed`, `milestone['m']`. */
export interface PathSyntax extends Span {
  kind: 'path';
  root: string;
  segments: readonly string[];
  selections: readonly Selection[];
  /** Every segment is a plain `.name` selection. */
  dotted: boolean;
}

export type Syntax =
  | (Span & { kind: 'literal'; value: string | boolean | number | bigint | null })
  | PathSyntax
  | (Span & { kind: 'not'; operand: Syntax })
  /** `&&` and `||` chains, flattened: `a && (b && c)` has three operands. */
  | (Span & { kind: 'and' | 'or'; operands: Syntax[] })
  | (Span & { kind: 'compare'; op: '==' | '!=' | '<' | '<=' | '>' | '>='; left: Syntax; right: Syntax })
  | (Span & { kind: 'in'; element: Syntax; container: Syntax })
  | (Span & { kind: 'list'; items: Syntax[] })
  /** A function call (`count(x)`), or a method call on a receiver (`data.items.exists(…)`). */
  | (Span & { kind: 'call'; name: string; receiver?: Syntax; args: Syntax[] })
  /** Anything else, with the expressions it holds. */
  | (Span & { kind: 'other'; children: Syntax[] });

/** The library's node, as far as this module reads it. */
interface Node {
  op: string;
  args: unknown;
  start: number;
  end: number;
}

let parser: Environment | undefined;

/** The tree of `source`, or undefined when it is not CEL (the expression checks report that). */
export function parseSyntax(source: string): Syntax | undefined {
  const substituted = substituteVariables(source);
  parser ??= new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true });
  let root: Node;
  try {
    root = parser.parse(substituted.text).ast as unknown as Node;
  } catch {
    return undefined;
  }
  return new Shaper((offset, end) => (end ? substituted.toOriginalEnd(offset) : substituted.toOriginal(offset))).shape(root);
}

/** Calls `visit` with every node of the tree, a node before the nodes it holds. */
export function walkSyntax(node: Syntax, visit: (node: Syntax) => void): void {
  visit(node);
  for (const child of childrenOf(node)) walkSyntax(child, visit);
}

function childrenOf(node: Syntax): readonly Syntax[] {
  switch (node.kind) {
    case 'not':
      return [node.operand];
    case 'and':
    case 'or':
      return node.operands;
    case 'compare':
      return [node.left, node.right];
    case 'in':
      return [node.element, node.container];
    case 'list':
      return node.items;
    case 'call':
      return node.receiver === undefined ? node.args : [node.receiver, ...node.args];
    case 'other':
      return node.children;
    default:
      return [];
  }
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const SELECTIONS = new Set<string>(['.', '.?', '[]', '[?]']);

class Shaper {
  constructor(private readonly original: (offset: number, end: boolean) => number) {}

  shape(node: Node): Syntax {
    const span = { start: this.original(node.start, false), end: this.original(node.end, true) };
    const path = pathOf(node);
    if (path !== undefined) return { kind: 'path', ...span, ...path };
    switch (node.op) {
      case 'value':
        return { kind: 'literal', ...span, value: node.args as string | boolean | number | bigint | null };
      case '!_':
        return { kind: 'not', ...span, operand: this.shape(node.args as Node) };
      case '&&':
      case '||':
        return { kind: node.op === '&&' ? 'and' : 'or', ...span, operands: this.flatten(node, node.op) };
      case 'in': {
        const [element, container] = node.args as [Node, Node];
        return { kind: 'in', ...span, element: this.shape(element), container: this.shape(container) };
      }
      case 'list':
        return { kind: 'list', ...span, items: (node.args as Node[]).map((item) => this.shape(item)) };
      case 'call': {
        const [name, args] = node.args as [string, Node[]];
        return { kind: 'call', ...span, name, args: args.map((arg) => this.shape(arg)) };
      }
      case 'rcall': {
        const [name, receiver, args] = node.args as [string, Node, Node[]];
        return { kind: 'call', ...span, name, receiver: this.shape(receiver), args: args.map((arg) => this.shape(arg)) };
      }
      default:
        if (COMPARISONS.has(node.op)) {
          const [left, right] = node.args as [Node, Node];
          return { kind: 'compare', ...span, op: node.op as '==', left: this.shape(left), right: this.shape(right) };
        }
        return { kind: 'other', ...span, children: nodesIn(node.args).map((child) => this.shape(child)) };
    }
  }

  private flatten(node: Node, op: string): Syntax[] {
    return (node.args as Node[]).flatMap((operand) => (operand.op === op ? this.flatten(operand, op) : [this.shape(operand)]));
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).op === 'string';
}

/** The nodes among a node's arguments, at any depth of arrays (map entries are pairs). */
function nodesIn(args: unknown): Node[] {
  if (isNode(args)) return [args];
  return Array.isArray(args) ? args.flatMap(nodesIn) : [];
}

function pathOf(node: Node): Omit<PathSyntax, 'kind' | 'start' | 'end'> | undefined {
  const segments: string[] = [];
  const selections: Selection[] = [];
  let current = node;
  while (SELECTIONS.has(current.op)) {
    const [target, name] = current.args as [Node, string | Node];
    const segment = typeof name === 'string' ? name : name.op === 'value' && typeof name.args === 'string' ? name.args : undefined;
    if (segment === undefined) return undefined;
    segments.unshift(segment);
    selections.unshift(current.op as Selection);
    current = target;
  }
  if (current.op !== 'id') return undefined;
  return { root: current.args as string, segments, selections, dotted: selections.every((selection) => selection === '.') };
}
