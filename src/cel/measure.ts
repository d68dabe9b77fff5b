/**
 * The depth and comprehension nesting of an expression as the core measures them (compat-core-cel.md §5): on the
 * tree cel-cpp checks, not on the text. That tree differs from the library's parse in three ways this module
 * reproduces:
 *  - a chain `a || b || c || …` (and `&&`) is a balanced tree, so 33 terms are 7 levels, not 33;
 *  - a macro is its expansion: `all`, `exists`, `exists_one`, `map`, `filter` are comprehensions of five parts
 *    (range, init, condition, step, result) whose step wraps the predicate in one or two calls; `has(a.b)` is a
 *    select; `cel.bind(x, v, e)` is a comprehension over an empty list; `optMap`/`optFlatMap` a conditional around
 *    a `cel.bind`;
 *  - `cal.f(…)`, `optional.of(…)` are global functions, not calls on a variable.
 * A node is 1 + the deepest of its children; leaves are 1. Comprehensions count for the nesting limit unless their
 * range is the empty list (`cel.bind`).
 */

/** The library's node, as far as this module reads it. */
export interface TreeNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
}

export interface Measure {
  depth: number;
  /** The most comprehensions on one path from the root. */
  nesting: number;
  /** The innermost comprehension of the most nested path (for the underline). */
  deepest: TreeNode;
}

const NAMESPACES = new Set(['cal', 'optional', 'cel', 'strings']);

/** Levels a macro's expansion puts around its predicate, and the depth of its other parts. */
const MACRO_STEP: Readonly<Record<string, (predicate: number, transform?: number) => number>> = {
  // all: step = _&&_(accu, p); condition = @not_strictly_false(accu) (2 levels)
  all: (p) => Math.max(2, 1 + Math.max(1, p)),
  // exists: step = _||_(accu, p); condition = @not_strictly_false(!_(accu)) (3 levels)
  exists: (p) => Math.max(3, 1 + Math.max(1, p)),
  // exists_one: step = _?_:_(p, _+_(accu, 1), accu); result = _==_(accu, 1)
  exists_one: (p) => 1 + Math.max(p, 2, 1),
  // map(x, t): step = _+_(accu, [t])
  map: (p, t) => (t === undefined ? 1 + Math.max(1, 1 + p) : 1 + Math.max(p, 1 + Math.max(1, 1 + t), 1)),
  // filter(x, p): step = _?_:_(p, _+_(accu, [x]), accu)
  filter: (p) => 1 + Math.max(p, 3, 1),
};

export function measureTree(root: TreeNode, text: string): Measure {
  return new Measurer(text).measure(root);
}

class Measurer {
  private nesting = 0;
  private deepest: TreeNode | undefined;

  constructor(private readonly text: string) {}

  measure(root: TreeNode): Measure {
    const depth = this.depth(root, 0);
    return { depth, nesting: this.nesting, deepest: this.deepest ?? root };
  }

  /** `nested`: counted comprehensions around the node. */
  private depth(node: TreeNode, nested: number): number {
    const args = node.args;
    switch (node.op) {
      case 'value':
      case 'id':
        return 1;
      case '.':
      case '.?':
        return 1 + this.depth((args as [TreeNode])[0], nested);
      case '||':
      case '&&':
        return this.chain(node, nested);
      case 'call':
        return this.call(node, nested);
      case 'rcall':
        return this.methodCall(node, nested);
      case 'map':
        return 1 + this.deepestOf((args as [TreeNode, TreeNode][]).flat(), nested);
      case '!_':
      case '-_':
        return 1 + this.depth(args as TreeNode, nested);
      default:
        return 1 + this.deepestOf(Array.isArray(args) ? (args as TreeNode[]) : [], nested);
    }
  }

  private deepestOf(nodes: readonly TreeNode[], nested: number): number {
    let deepest = 0;
    for (const node of nodes) deepest = Math.max(deepest, this.depth(node, nested));
    return deepest;
  }

  private call(node: TreeNode, nested: number): number {
    const [name, args] = node.args as [string, TreeNode[]];
    // has(a.b) is the select itself, marked as a test.
    if (name === 'has' && args.length === 1) return this.depth(args[0]!, nested);
    return 1 + this.deepestOf(args, nested);
  }

  private methodCall(node: TreeNode, nested: number): number {
    const [name, receiver, args] = node.args as [string, TreeNode, TreeNode[]];
    const namespace = receiver.op === 'id' && NAMESPACES.has(receiver.args as string);
    if (namespace && name === 'bind' && receiver.args === 'cel' && args.length === 3) return this.bind(args[1]!, args[2]!, nested);
    if (namespace) return 1 + this.deepestOf(args, nested);
    const step = MACRO_STEP[name];
    if (step !== undefined && (args.length === 2 || (name === 'map' && args.length === 3)) && args[0]!.op === 'id') {
      return this.comprehension(node, receiver, args.slice(1), step, nested);
    }
    if ((name === 'optMap' || name === 'optFlatMap') && args.length === 2) {
      // r.hasValue() ? optional.of(cel.bind(x, r.value(), e)) : optional.none()
      const r = this.depth(receiver, nested);
      const bound = 1 + Math.max(1, 1 + r, 1, 1, this.depth(args[1]!, nested));
      return 1 + Math.max(1 + r, name === 'optMap' ? 1 + bound : bound, 1);
    }
    return 1 + Math.max(this.depth(receiver, nested), this.deepestOf(args, nested));
  }

  /** A comprehension that counts for the nesting limit: its range and every part nest one deeper. */
  private comprehension(node: TreeNode, range: TreeNode, parts: TreeNode[], step: (p: number, t?: number) => number, nested: number): number {
    const inner = nested + 1;
    if (inner > this.nesting) {
      this.nesting = inner;
      this.deepest = node;
    }
    const rangeDepth = this.depth(range, inner);
    const predicate = this.depth(parts[0]!, inner);
    const transform = parts.length > 1 ? this.depth(parts[1]!, inner) : undefined;
    return 1 + Math.max(rangeDepth, 1, step(predicate, transform));
  }

  /** cel.bind(x, v, e): a comprehension over `[]` with accumulator x = v and result e — not counted for nesting. */
  private bind(value: TreeNode, expression: TreeNode, nested: number): number {
    return 1 + Math.max(1, this.depth(value, nested), 1, 1, this.depth(expression, nested));
  }

  /**
   * A flat `||` or `&&` chain as cel-cpp's parser balances it: the operator at the middle splits the terms, each
   * half balanced the same way. Parentheses end a chain.
   */
  private chain(node: TreeNode, nested: number): number {
    const depths: number[] = [];
    this.termDepths(node, node.op, nested, depths);
    return balancedDepth(depths, 0, depths.length - 2);
  }

  /** The depth of each term of the chain `node` heads, in order; a parenthesized operand is one term. */
  private termDepths(node: TreeNode, op: string, nested: number, depths: number[]): void {
    const [left, right] = node.args as [TreeNode, TreeNode];
    if (left.op === op && !this.parenthesized(left)) this.termDepths(left, op, nested, depths);
    else depths.push(this.depth(left, nested));
    depths.push(this.depth(right, nested));
  }

  /** The library drops parentheses; the text after the operand tells: `)` before the operator. */
  private parenthesized(node: TreeNode): boolean {
    let i = node.end;
    while (i < this.text.length && isBlank(this.text.charCodeAt(i))) i++;
    return this.text[i] === ')';
  }
}

/** What the library's lexer skips between tokens: space, tab, line feed, carriage return. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** The depth of the terms `lo..hi + 1` of a chain balanced as cel-cpp balances it: the operator at the middle splits them. */
function balancedDepth(depths: readonly number[], lo: number, hi: number): number {
  const mid = (lo + hi + 1) >> 1;
  const left = mid === lo ? depths[mid]! : balancedDepth(depths, lo, mid - 1);
  const right = mid === hi ? depths[mid + 1]! : balancedDepth(depths, mid + 1, hi);
  return 1 + Math.max(left, right);
}
