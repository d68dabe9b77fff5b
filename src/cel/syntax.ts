/**
 * The shape of an expression without its types: a small tree over the CEL library's parse, for analyses that
 * reason about what an expression *says* (which stage a guard waits for, which values of a field a `when`
 * accepts) rather than what it gives. Anything the analyses do not read is `other`; nothing here evaluates.
 */
import { Environment } from '@marcbachmann/cel-js';
import { substituteVariables } from './install-variables.js';

interface Span {
  /** Offsets into the text as parsed (`${NAME}` replaced by a value of its kind). */
  start: number;
  end: number;
}

/** A name followed by field selections and literal-key indexes: `stage.review.completed`, `milestone['m']`. */
export interface PathSyntax extends Span {
  kind: 'path';
  root: string;
  segments: readonly string[];
  /** Every segment is a `.name` selection (no `['name']` index, no `.?`). */
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
  | (Span & { kind: 'other' });

/** The library's node, as far as this module reads it. */
interface Node extends Span {
  op: string;
  args: unknown;
}

let parser: Environment | undefined;

/** The tree of `source`, or undefined when it is not CEL (the expression checks report that). */
export function parseSyntax(source: string): { text: string; tree: Syntax } | undefined {
  const { text } = substituteVariables(source);
  parser ??= new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true });
  try {
    return { text, tree: shapeOf(parser.parse(text).ast as unknown as Node) };
  } catch {
    return undefined;
  }
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

function shapeOf(node: Node): Syntax {
  const span = { start: node.start, end: node.end };
  const path = pathOf(node);
  if (path !== undefined) return { kind: 'path', ...span, ...path };
  switch (node.op) {
    case 'value':
      return { kind: 'literal', ...span, value: node.args as string | boolean | number | bigint | null };
    case '!_':
      return { kind: 'not', ...span, operand: shapeOf(node.args as Node) };
    case '&&':
    case '||':
      return { kind: node.op === '&&' ? 'and' : 'or', ...span, operands: flatten(node, node.op) };
    case 'in': {
      const [element, container] = node.args as [Node, Node];
      return { kind: 'in', ...span, element: shapeOf(element), container: shapeOf(container) };
    }
    case 'list':
      return { kind: 'list', ...span, items: (node.args as Node[]).map(shapeOf) };
    default:
      if (COMPARISONS.has(node.op)) {
        const [left, right] = node.args as [Node, Node];
        return { kind: 'compare', ...span, op: node.op as '==', left: shapeOf(left), right: shapeOf(right) };
      }
      return { kind: 'other', ...span };
  }
}

function flatten(node: Node, op: string): Syntax[] {
  return (node.args as Node[]).flatMap((operand) => (operand.op === op ? flatten(operand, op) : [shapeOf(operand)]));
}

function pathOf(node: Node): Omit<PathSyntax, 'kind' | 'start' | 'end'> | undefined {
  const segments: string[] = [];
  let dotted = true;
  let current = node;
  for (;;) {
    if (current.op === '.') {
      const [target, name] = current.args as [Node, string];
      segments.unshift(name);
      current = target;
    } else if (current.op === '[]') {
      const [target, index] = current.args as [Node, Node];
      if (index.op !== 'value' || typeof index.args !== 'string') return undefined;
      segments.unshift(index.args);
      dotted = false;
      current = target;
    } else if (current.op === 'id') {
      return { root: current.args as string, segments, dotted };
    } else {
      return undefined;
    }
  }
}
