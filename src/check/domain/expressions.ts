/**
 * The `$.` expressions of task types (compat-core-validators.md §1.5): `$.<root>` with `.name` / `[index]`
 * segments, an optional `!` (the value is required) and an optional `|truncate:N`. Each root reads fixed
 * fields; anything else is "unsupported". Approval and completion actions, approval preconditions, context
 * anchors and execution inputs write them inside their strings.
 */

/** One `$.` expression found in a string. */
export interface Expression {
  text: string;
  offset: number;
  root: string;
  segments: Segment[];
  required: boolean;
  /** The filter as written after `|` (`truncate:80`), when there is one. */
  filter?: string;
}

export type Segment = { name: string } | { index: string };

const EXPRESSION = /\$\.([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+|\[[^\]\s]*\])*)(!?)(\|[A-Za-z_]+(?::[0-9A-Za-z_-]*)?)?/g;
const SEGMENT = /\.([A-Za-z0-9_-]+)|\[([^\]\s]*)\]/g;
const MAX_TRUNCATE = 100_000;

/** Fields of a task (and of the task that spawned it) an expression reads directly. */
const TASK_FIELDS: ReadonlySet<string> = new Set(['id', 'publicId', 'title', 'description', 'assigneeId', 'workspaceId', 'status', 'priority']);
const APPROVAL_FIELDS: ReadonlySet<string> = new Set(['id', 'comment', 'decidedBy', 'decidedAt', 'outcome']);
const INVOCATION_FIELDS: ReadonlySet<string> = new Set(['id', 'skill', 'status']);

/** Every `$.` expression of `text`, in order. */
export function expressionsIn(text: string): Expression[] {
  const found: Expression[] = [];
  for (const match of text.matchAll(EXPRESSION)) {
    const segments: Segment[] = [...match[2]!.matchAll(SEGMENT)].map((s) => (s[1] !== undefined ? { name: s[1] } : { index: s[2]! }));
    found.push({
      text: match[0],
      offset: match.index,
      root: match[1]!,
      segments,
      required: match[3] === '!',
      ...(match[4] ? { filter: match[4].slice(1) } : {}),
    });
  }
  return found;
}

/** True when the whole (trimmed) string is one expression. */
export function wholeExpression(text: string): Expression | undefined {
  const trimmed = text.trim();
  const [first] = expressionsIn(trimmed);
  return first !== undefined && first.offset === 0 && first.text.length === trimmed.length ? first : undefined;
}

/** Why the filter of an expression is not `truncate:N` with 1 ≤ N ≤ 100 000. */
function filterProblem(expression: Expression): string | undefined {
  if (expression.filter === undefined) return undefined;
  const match = /^truncate:([0-9]+)$/.exec(expression.filter);
  const limit = match ? Number(match[1]) : NaN;
  if (!match || limit < 1 || limit > MAX_TRUNCATE) return `the only filter is |truncate:N with 1 ≤ N ≤ ${MAX_TRUNCATE}`;
  return undefined;
}

/**
 * Why the fields an expression reads are not fields of its root (undefined when they are). The roots `task`
 * and `spawnedBy` read a field, `customFields.<key>` or `artifact[<type>].metadata.<field>`; `approval` and
 * `invocation` read their own fields. `shortArtifact` admits `artifact[<type>].<field>` (context anchors).
 */
export function fieldProblem(root: string, segments: readonly Segment[], options: { shortArtifact?: boolean } = {}): string | undefined {
  const names = segments.map((segment) => ('name' in segment ? segment.name : undefined));
  const [first, second] = names;
  switch (root) {
    case 'task':
    case 'spawnedBy': {
      if (segments.length === 1 && first !== undefined && TASK_FIELDS.has(first)) return undefined;
      if (first === 'customFields') return segments.length === 2 && second !== undefined ? undefined : 'customFields is read as customFields.<key>';
      if (first === 'artifact') {
        const typed = segments[1] !== undefined && 'index' in segments[1] && segments[1].index.length > 0;
        if (typed && segments.length === 4 && names[2] === 'metadata' && names[3] !== undefined) return undefined;
        if (typed && options.shortArtifact && segments.length === 3 && names[2] !== undefined) return undefined;
        return 'an artifact is read as artifact[<type>].metadata.<field>';
      }
      return `${root} reads ${[...TASK_FIELDS].join(', ')}, customFields.<key> or artifact[<type>].metadata.<field>`;
    }
    case 'approval':
      return segments.length === 1 && first !== undefined && APPROVAL_FIELDS.has(first) ? undefined : `approval reads ${[...APPROVAL_FIELDS].join(', ')}`;
    case 'invocation':
      if (segments.length === 1 && first !== undefined && INVOCATION_FIELDS.has(first)) return undefined;
      if (first === 'output' && segments.length === 2 && second !== undefined) return undefined;
      if (first === 'error' && segments.length === 2 && (second === 'code' || second === 'message')) return undefined;
      return 'invocation reads id, skill, status, output.<key>, error.code or error.message';
    default:
      return `there is no root '${root}'`;
  }
}

/**
 * Why an expression is not one a place may write: its root is not among `roots` (`rootProblem` words it), its
 * fields are not its root's, or its filter is not truncate.
 */
export function expressionProblem(expression: Expression, roots: readonly string[], rootProblem?: (root: string) => string): string | undefined {
  if (!roots.includes(expression.root)) {
    const known = ['task', 'spawnedBy', 'approval', 'invocation'].includes(expression.root);
    return rootProblem && known ? rootProblem(expression.root) : `unsupported expression '${expression.text}': ${known ? `$.${expression.root} is not read here` : `there is no root '${expression.root}'`} (roots here: ${roots.join(', ')})`;
  }
  const problem = fieldProblem(expression.root, expression.segments) ?? filterProblem(expression);
  return problem === undefined ? undefined : `unsupported expression '${expression.text}': ${problem}`;
}
