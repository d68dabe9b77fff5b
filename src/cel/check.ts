/**
 * Checking one expression of the `cp/1` profile as the core compiles it (compat-core-cel.md §5): length, syntax,
 * the names it reads, its type, its depth, and what its place needs.
 *
 * Codes (the core's):
 *  - `expression_syntax_error` — the text is not CEL;
 *  - `expression_too_complex` — longer than 4000 characters, or its checked tree deeper than 32, or more than 3
 *    comprehensions nested (`cel.bind` does not count);
 *  - `expression_type_error` — anything else that does not compile: an undeclared variable or function (`now()`),
 *    a field a typed object does not declare (under `has()` and `.?` too), an ISO duration literal with years or
 *    months, an RE2-invalid `matches()` pattern, an optional result, or a result of another type than the place
 *    needs;
 *  - `settings_ref_unknown` — `settings.<path>` the package settings do not declare (or no settings at all);
 *  - `settings_ref_type` — a type error that goes away when `settings` is untyped: the settings field does not fit;
 *  - `aggregate_outside_metrics` — `count/sum/avg/min/max(…)` in a view expression outside metrics and chart.
 *
 * Offsets and lengths are UTF-16 offsets into the text as written (before `${VAR}` substitution).
 */
import { closestName, didYouMean } from '../model/did-you-mean.js';
import { parseDuration } from './duration.js';
import type { CelEnvironment } from './environment.js';
import { AGGREGATES, ISO_DURATION_FUNCTION, LIBRARY_TYPE_NAMES, RE2_MATCHES_FUNCTION } from './functions.js';
import { substituteVariables, type InstallVariable, type Substituted } from './install-variables.js';
import { measureTree, type TreeNode } from './measure.js';
import { compileRegex } from './regex.js';
import { describeShape, lookupPath, OBJECT_TYPE_PREFIX, type CelShape, type PathStep } from './types.js';
import { CalendarNamespace, KeyedCalendarNamespace } from './calendar.js';

export type CelCode =
  | 'expression_syntax_error'
  | 'expression_type_error'
  | 'expression_too_complex'
  | 'settings_ref_unknown'
  | 'settings_ref_type'
  | 'aggregate_outside_metrics';

/** One line per code, for the rule metadata and the generated page of findings. All are errors. */
export const CEL_CODES: Readonly<Record<CelCode, string>> = {
  expression_syntax_error: 'An expression must be CEL.',
  expression_type_error: 'An expression must compile in the cp/1 profile (declared names and fields only, no now()) and give what its place needs.',
  expression_too_complex: 'An expression is at most 4000 characters, its checked tree at most 32 deep, with at most 3 comprehensions nested.',
  settings_ref_unknown: 'settings.<path> must be a field of the package settings.',
  settings_ref_type: 'A settings field must have the type the place it is used in needs.',
  aggregate_outside_metrics: 'Aggregates (count, sum, avg, min, max) belong to metrics and chart blocks only.',
};

export interface CelDiagnostic {
  code: CelCode;
  message: string;
  /** Offset into the expression as written. */
  offset: number;
  /** Characters covered; 0 at the very end of the text (a missing closing part). */
  length: number;
  hint?: string;
}

/** A type an expression may be required to give. Object types count as `map`. */
export type CelTypeName = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'timestamp' | 'duration' | 'list' | 'map' | 'null';

/** What a field needs of its expression: one type, one of several, or anything (undefined). */
export type Expected = CelTypeName | readonly CelTypeName[] | undefined;

export interface CheckOptions {
  /** What the field needs; `dyn` results always pass (they are checked when evaluated). */
  expected?: CelTypeName | readonly CelTypeName[];
  /** Installation variables for `${NAME}` (the manifest's `spec.variables`, with values when known). */
  variables?: Readonly<Record<string, InstallVariable>>;
}

/** A fixed path an expression reads: `data.purchase.number` → root `data`, path `['purchase', 'number']`. */
export interface PathRead {
  root: string;
  path: string[];
  offset: number;
  length: number;
  /** Read under `has()`, or through `.?` / `[?]` — the expression copes with the field being unset. */
  guarded: boolean;
}

export interface CheckResult {
  /** The result type (`bool`, `string`, `list<string>`, `timestamp`, `dyn`, …) when the expression compiles. */
  type?: string;
  diagnostics: CelDiagnostic[];
  /** Paths read under `data` (for `unwritten_data_field`); `[]` is the whole of `data`. */
  reads: PathRead[];
  /** Paths read under the package `settings`. */
  settingsReads: PathRead[];
  /** Every variable of the profile the expression reads, outside names a comprehension binds. */
  roots: ReadonlySet<string>;
  /** Every fixed path it reads, of any variable (`stage.review.completed`). */
  paths: PathRead[];
}

export const LIMITS = { length: 4000, depth: 32, comprehensionNesting: 3 } as const;

/** Macros whose variable scopes over their later arguments, and the names they bind from which argument on. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter', 'optMap', 'optFlatMap']);

/** The parts of the library's syntax tree this module reads. */
interface Node extends TreeNode {
  /** For a field access: where the field name starts. */
  pos: number;
  checkedType?: { name: string };
}

interface Segment {
  step: PathStep;
  start: number;
  end: number;
  optional: boolean;
}

interface Chain {
  root: Node & { args: string };
  segments: Segment[];
}

/** @internal what an environment keeps per expression text */
export interface CheckedExpression {
  result: CheckResult;
  /** The library's compiled program, present when the expression checked clean and was compiled for evaluation. */
  program?: (context: Record<string, unknown>) => unknown;
}

/**
 * What each environment checked, by expected type and source text (and substituted text, see `cacheKey`). The
 * library's program is kept only for an expression evaluated: a check of thousands of expressions would otherwise
 * keep every syntax tree alive, and the garbage collector would copy them all over and over.
 */
const CHECKED = new WeakMap<CelEnvironment, Map<string, CheckedExpression>>();

/** Check an expression in an environment. Results are cached per environment and text: treat them as read-only. */
export function checkExpression(env: CelEnvironment, source: string, options: CheckOptions = {}): CheckResult {
  return cachedExpression(env, source, options, false).result;
}

/** @internal shared with `evaluate`: the check's result, with the library's program when the expression checked clean */
export function compiledExpression(env: CelEnvironment, source: string, options: CheckOptions = {}): CheckedExpression {
  return cachedExpression(env, source, options, true);
}

function cachedExpression(env: CelEnvironment, source: string, options: CheckOptions, needsProgram: boolean): CheckedExpression {
  const substituted = substituteVariables(source, options.variables);
  let checked = CHECKED.get(env);
  if (checked === undefined) CHECKED.set(env, (checked = new Map()));
  const key = cacheKey(source, substituted.text, expectedKey(options.expected));
  const known = checked.get(key);
  if (known !== undefined && (!needsProgram || known.program !== undefined || known.result.diagnostics.length > 0)) return known;
  const fresh = new Checker(env, source, substituted, options).run();
  // A result already handed out stays the one: callers may hold it.
  const entry: CheckedExpression = needsProgram ? { result: known?.result ?? fresh.result, program: fresh.program } : { result: fresh.result };
  checked.set(key, entry);
  return entry;
}

/**
 * One key per source, expected type and substituted text: the expected type (which holds no control character)
 * comes first, then `\u0000` and the source — or, when variables changed the text, `\u0001`, the length of the
 * source, the source and the substituted text.
 */
function cacheKey(source: string, substituted: string, expected: string): string {
  return substituted === source ? `${expected}\u0000${source}` : `${expected}\u0001${source.length}\u0001${source}${substituted}`;
}

function expectedKey(expected: CheckOptions['expected']): string {
  return expected === undefined ? '' : typeof expected === 'string' ? expected : expected.join('|');
}

/** Python's `len`: code points, as the core counts the limit. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === text.length) n++;
  }
  return n;
}

class Checker {
  private readonly diagnostics: CelDiagnostic[] = [];
  private readonly reads: PathRead[] = [];
  private readonly roots = new Set<string>();
  /** Levels of the library's tree the walk reached (at least its height), and the comprehension macros it met. */
  private height = 0;
  private comprehensions = 0;

  constructor(
    private readonly env: CelEnvironment,
    private readonly source: string,
    private readonly substituted: Substituted,
    private readonly options: CheckOptions,
  ) {}

  run(): CheckedExpression {
    if (!/\S/.test(this.source)) {
      this.report('expression_syntax_error', 0, this.source.length, 'an expression must be a non-empty string');
      return this.done();
    }
    // Code points are never more than UTF-16 units: only a long text needs counting.
    const length = this.source.length > LIMITS.length ? codePoints(this.source) : this.source.length;
    if (length > LIMITS.length) {
      this.report('expression_too_complex', 0, this.source.length, `the expression is longer than ${LIMITS.length} characters (${length})`,
        'move parts of it into steps that set data fields, or into a decision table');
      return this.done();
    }
    let program: ReturnType<CelEnvironment['cel']['parse']>;
    try {
      program = this.env.cel.parse(this.substituted.text);
    } catch (error) {
      this.reportLibraryError(error, 'expression_syntax_error');
      return this.done();
    }
    const root = program.ast as unknown as Node;
    this.walk(root, NOTHING_BOUND, false, 1);
    if (this.diagnostics.length > 0) return this.done();
    const checked = program.check();
    if (!checked.valid) {
      this.typeError(checked.error);
      return this.done();
    }
    if (this.mayPassLimits() && !this.withinLimits(root)) return this.done();
    const type = prettyType(checked.type ?? 'dyn');
    this.checkResultType(root, type);
    return this.diagnostics.length > 0 ? this.done() : this.done(type, program);
  }

  private done(type?: string, program?: CheckedExpression['program']): CheckedExpression {
    const result: CheckResult = {
      diagnostics: this.diagnostics,
      reads: this.reads.filter((read) => read.root === 'data'),
      settingsReads: this.env.settingsAreSettings ? this.reads.filter((read) => read.root === 'settings') : [],
      roots: this.roots,
      paths: this.reads,
    };
    if (type === undefined) return { result };
    result.type = type;
    return { result, program };
  }

  /** Offsets of the substituted text → the text as written. */
  private report(code: CelCode, start: number, end: number, message: string, hint?: string): void {
    const offset = this.substituted.toOriginal(start);
    const length = Math.max(0, this.substituted.toOriginalEnd(end) - offset);
    this.diagnostics.push(hint === undefined ? { code, message, offset, length } : { code, message, offset, length, hint });
  }

  /**
   * Whether the checked tree may be too deep or too nested; if not, it is not measured. In a library tree of
   * height h ≤ 16 a level is at most four levels of the checked tree — a macro's expansion puts at most three
   * around its predicate or transform; a chain of n ≤ h terms, balanced, puts a term at most ⌈log₂ n⌉ ≤ 4 levels
   * down — so a tree at most 8 high is at most 32 deep. Comprehensions cannot nest deeper than there are macros.
   */
  private mayPassLimits(): boolean {
    return this.height * 4 > LIMITS.depth || this.comprehensions > LIMITS.comprehensionNesting;
  }

  private withinLimits(root: Node): boolean {
    const { depth, nesting, deepest } = measureTree(root, this.substituted.text);
    if (depth > LIMITS.depth || nesting > LIMITS.comprehensionNesting) {
      const at = nesting > LIMITS.comprehensionNesting ? deepest : root;
      this.report('expression_too_complex', at.start, at.end,
        `the expression nests deeper than ${LIMITS.depth} or has more than ${LIMITS.comprehensionNesting} nested comprehensions (depth ${depth}, ${nesting} nested)`,
        'split it: compute parts in earlier steps (set), or name a part with cel.bind');
      return false;
    }
    return true;
  }

  /**
   * Reads, undeclared names and literal arguments, in source order. `bound` holds names a macro bound; `level` is
   * the node's level in the library's tree (the root is 1).
   */
  private walk(node: Node, bound: ReadonlySet<string>, guarded: boolean, level: number): void {
    this.reach(level);
    const chain = accessChain(node);
    if (chain !== undefined) {
      // The chain's name is `segments` levels below it, and so is at most any index.
      const below = level + chain.segments.length;
      this.reach(below);
      this.chainRead(chain, bound, guarded);
      this.walkIndexes(node, bound, below);
      return;
    }
    switch (node.op) {
      case 'call':
        this.call(node as Node & { args: [string, Node[]] }, bound, level + 1);
        return;
      case 'rcall':
        this.methodCall(node as Node & { args: [string, Node, Node[]] }, bound, level + 1);
        return;
      default:
        for (const child of children(node)) this.walk(child, bound, false, level + 1);
    }
  }

  /** Records that the walk reached `level` of the library's tree. */
  private reach(level: number): void {
    if (level > this.height) this.height = level;
  }

  /** The index expressions of a chain of reads (literals: nothing to read, but walked for completeness). */
  private walkIndexes(chain: Node, bound: ReadonlySet<string>, level: number): void {
    for (let current = chain; current.op !== 'id'; current = (current.args as [Node])[0]) {
      if (current.op === '[]' || current.op === '[?]') this.walk((current.args as [Node, Node])[1], bound, false, level);
    }
  }

  /** A call; `level` is its arguments'. */
  private call(node: Node & { args: [string, Node[]] }, bound: ReadonlySet<string>, level: number): void {
    const [name, args] = node.args;
    if (name === 'now' && !this.env.variables.has('now')) {
      this.reportUndeclared(node, 'now');
      return;
    }
    if (name === 'duration') this.durationLiteral(node, args[0]);
    if (name === 'matches') this.matchesCall(node, args[1]);
    if ((AGGREGATES as readonly string[]).includes(name) && this.env.profile.kind === 'view' && this.env.profile.aggregates !== true) {
      this.report('aggregate_outside_metrics', node.start, node.end,
        `${name}() aggregates the records of the source — only metrics and chart blocks show aggregates`,
        'move it into a metrics or chart block');
    }
    for (const arg of args) this.walk(arg, bound, name === 'has', level);
  }

  /** A call on a receiver; `level` is the receiver's and the arguments'. */
  private methodCall(node: Node & { args: [string, Node, Node[]] }, bound: ReadonlySet<string>, level: number): void {
    const [name, receiver, args] = node.args;
    if (name === 'matches') this.matchesCall(node, args[0]);
    const binds = bindingOf(node);
    // The receiver and a bound name are nodes of this level even where they are not walked.
    this.reach(level);
    // `cal.f(…)`, `optional.of(…)`, `cel.bind(…)`: a function of the profile, not a read of a variable.
    if (!(receiver.op === 'id' && NAMESPACES.has(receiver.args as string) && !bound.has(receiver.args as string))) this.walk(receiver, bound, false, level);
    if (COMPREHENSIONS.has(name)) this.comprehensions++;
    if (binds === undefined) {
      for (const arg of args) this.walk(arg, bound, false, level);
      return;
    }
    const scope = new Set(bound).add(binds.name);
    for (let i = 1; i < args.length; i++) this.walk(args[i]!, i >= binds.from ? scope : bound, false, level);
  }

  private chainRead(chain: Chain, bound: ReadonlySet<string>, guarded: boolean): void {
    const name = chain.root.args;
    if (bound.has(name)) return;
    if (name === 'now' && !this.env.variables.has('now')) {
      this.reportUndeclared(chain.root, 'now');
      return;
    }
    if (NAMESPACES.has(name) && !this.env.variables.has(name)) {
      // A namespace of functions read as a value: there is no such variable.
      this.reportUndeclared(chain.root, name);
      return;
    }
    const shape = this.env.variables.get(name);
    if (shape === undefined) return; // the type checker reports the undeclared variable
    this.roots.add(name);
    const optional = guarded || chain.segments.some((s) => s.optional);
    const read = this.pathRead(chain, optional);
    if (read !== undefined) this.reads.push(read);
    if (name === 'settings' && this.env.settingsAreSettings) this.settingsName(chain);
    else this.undeclaredField(chain, shape);
  }

  /** The leading field names of a chain as a read; undefined when it starts with an index. */
  private pathRead(chain: Chain, guarded: boolean): PathRead | undefined {
    const names: string[] = [];
    let end = chain.root.end;
    for (const segment of chain.segments) {
      if (typeof segment.step !== 'string') break;
      names.push(segment.step);
      end = segment.end;
    }
    const offset = this.substituted.toOriginal(chain.root.start);
    return { root: chain.root.args, path: names, offset, length: this.substituted.toOriginalEnd(end) - offset, guarded };
  }

  /** A field the typed object does not declare: the core's "undefined field" compile error. */
  private undeclaredField(chain: Chain, shape: CelShape): void {
    const lookup = lookupPath(shape, chain.segments.map((s) => s.step));
    if (!('missing' in lookup)) return;
    const segment = chain.segments[lookup.missing]!;
    const owner = lookup.owner;
    const field = String(segment.step);
    const fields = [...owner.fields.keys()];
    const closest = closestName(field, fields);
    this.report('expression_type_error', segment.start, segment.end, `undefined field '${field}' not found in struct '${describeShape(owner)}'`,
      `${describeShape(owner)} has ${closest ?? fields.join(', ')}`);
  }

  private settingsName(chain: Chain): void {
    const profile = this.env.profile;
    if (chain.segments.length === 0 && profile.settings !== undefined) return;
    const path = ['settings', ...chain.segments.map((s) => String(s.step))].join('.');
    if (profile.settings === undefined) {
      const at = chain.segments[0] ?? { start: chain.root.start, end: chain.root.end };
      const [message, hint] = profile.settingsPackage === undefined
        ? [`${path}: the object is not from a package: it has no settings`, 'settings exist in the objects of a package that declares spec.settings']
        : [`${path}: package ${profile.settingsPackage} declares no settings`, 'declare spec.settings in package.yaml'];
      this.report('settings_ref_unknown', at.start, at.end, message, hint);
      return;
    }
    const lookup = lookupPath(this.env.variables.get('settings')!, chain.segments.map((s) => s.step));
    if (!('missing' in lookup)) return;
    const segment = chain.segments[lookup.missing]!;
    const field = String(segment.step);
    this.report('settings_ref_unknown', segment.start, segment.end,
      `${path}: the settings of package ${profile.settingsPackage ?? 'of the object'} declare no such field`,
      didYouMean(field, [...lookup.owner.fields.keys()]) ?? `declare '${field}' in spec.settings.schema of package.yaml`);
  }

  private reportUndeclared(node: Node, name: string): void {
    const hint = name === 'now'
      ? 'there is no current time: use event.time or instance.clock'
      : didYouMean(name, this.declaredNames());
    this.report('expression_type_error', node.start, node.end, `undeclared reference to '${name}'`, hint);
  }

  private declaredNames(): string[] {
    return [...this.env.variables.keys()];
  }

  /** A literal `duration("P…")` is ISO 8601, rewritten by the core; any other text is CEL's own (`"72h"`). */
  private durationLiteral(node: Node & { args: [string, Node[]] }, arg: Node | undefined): void {
    if (arg?.op !== 'value' || typeof arg.args !== 'string' || !/^-?P/.test(arg.args)) return;
    node.args[0] = ISO_DURATION_FUNCTION;
    const parsed = parseDuration(arg.args);
    if ('error' in parsed) {
      this.report('expression_type_error', arg.start, arg.end, `'${arg.args}' is not an ISO 8601 duration of weeks, days, hours, minutes, seconds`,
        "months and years have no fixed length: write days (P30D), or count with cal.*");
    }
  }

  /** `matches()` is RE2: the call runs on it, and a literal pattern RE2 refuses cannot match anything. */
  private matchesCall(node: Node & { args: unknown[] }, pattern: Node | undefined): void {
    node.args[0] = RE2_MATCHES_FUNCTION;
    if (pattern?.op !== 'value' || typeof pattern.args !== 'string') return;
    const compiled = compileRegex(pattern.args);
    if ('error' in compiled) {
      this.report('expression_type_error', pattern.start, pattern.end, `the regular expression is not RE2: ${compiled.error}`,
        'RE2 has no look-around and no back-references; (?i) and [[:alpha:]] work');
    }
  }

  private reportLibraryError(error: unknown, code: CelCode): void {
    const e = error as { code?: string; summary?: string; message?: string; range?: { start: number; end: number } };
    const range = e.range ?? { start: 0, end: this.substituted.text.length };
    const summary = e.summary ?? e.message ?? String(error);
    if (e.code === 'limit_exceeded') {
      this.report('expression_too_complex', range.start, range.end, `the expression is too large: ${summary}`);
      return;
    }
    this.report(code, range.start, range.end, `Syntax error: ${syntaxMessage(summary)}${this.at(range.start)}`);
  }

  /** " at L:C" of the text as written, as the core words its compile errors. */
  private at(offset: number): string {
    const original = this.substituted.toOriginal(offset);
    const before = this.source.slice(0, original).split('\n');
    return ` at ${before.length}:${before.at(-1)!.length + 1}`;
  }

  /** A compile error of the library: a settings field that does not fit, or the core's type error. */
  private typeError(error: unknown): void {
    const e = error as { code?: string; summary?: string; message?: string; range?: { start: number; end: number }; node?: Node };
    const range = e.range ?? { start: 0, end: this.substituted.text.length };
    const summary = prettyMessage(e.summary ?? e.message ?? String(error));
    if (this.settingsAtFault()) {
      const read = this.reads.find((r) => r.root === 'settings')!;
      this.report('settings_ref_type', range.start, range.end, `the type of settings.${read.path.join('.')} does not fit the place of the expression: ${summary}`);
      return;
    }
    this.report('expression_type_error', range.start, range.end, `${this.typeErrorMessage(e.code, e.node, summary)}${this.at(range.start)}`,
      this.typeErrorHint(e.code, e.node));
  }

  /** As the core decides: the program reads the package settings, and compiles with `settings` untyped. */
  private settingsAtFault(): boolean {
    if (!this.env.settingsAreSettings || this.env.profile.settings === undefined || !this.reads.some((r) => r.root === 'settings')) return false;
    const untyped = checkExpression(this.env.untypedSettings(), this.source, this.options);
    return untyped.diagnostics.length === 0;
  }

  /** The library's wording, except where a name is missing: say which name, and in what. */
  private typeErrorMessage(code: string | undefined, node: Node | undefined, summary: string): string {
    if (code === 'unknown_variable' && typeof node?.args === 'string') return `undeclared reference to '${node.args}'`;
    if (code === 'no_such_key' && (node?.op === '.' || node?.op === '.?' || node?.op === '[]') && Array.isArray(node.args)) {
      const receiver = node.args[0] as Node;
      const field = typeof node.args[1] === 'string' ? node.args[1] : String((node.args[1] as Node).args);
      const owner = this.ownerPath(receiver.checkedType?.name) ?? this.substituted.text.slice(receiver.start, receiver.end);
      return `undefined field '${field}' not found in struct '${owner}'`;
    }
    return summary;
  }

  private ownerPath(typeName: string | undefined): string | undefined {
    return [...this.env.objectTypes.values()].find((t) => t.name === typeName)?.path;
  }

  private typeErrorHint(code: string | undefined, node: Node | undefined): string | undefined {
    if (node === undefined) return undefined;
    if (code === 'unknown_variable' && typeof node.args === 'string') {
      return node.args === 'now' ? 'there is no current time: use event.time or instance.clock' : didYouMean(node.args, this.declaredNames());
    }
    if (code === 'no_such_key' && Array.isArray(node.args)) {
      const receiverType = (node.args[0] as Node).checkedType?.name;
      const type = [...this.env.objectTypes.values()].find((t) => t.name === receiverType);
      if (type === undefined) return undefined;
      const field = typeof node.args[1] === 'string' ? node.args[1] : String((node.args[1] as Node).args);
      return `${type.path} has ${closestName(field, type.fields) ?? type.fields.join(', ')}`;
    }
    if (code === 'no_matching_overload' && node.op === 'rcall' && isCalendarCall(node) && this.env.profile.calendar !== true) {
      return 'the process names no spec.calendar: give cal.* the calendar key as its last argument';
    }
    if (Array.isArray(node.args)) return operandHint(node.args as Node[]);
    return undefined;
  }

  private checkResultType(root: Node, type: string): void {
    const general = generalType(type);
    if (general === 'optional') {
      this.report('expression_type_error', root.start, root.end, 'the expression yields an optional value: end it with .orValue(...)',
        'unwrap it: .orValue(<default>) or .value()');
      return;
    }
    const expected = this.options.expected;
    if (expected === undefined || general === 'dyn') return;
    const allowed: readonly string[] = typeof expected === 'string' ? [expected] : expected;
    if (allowed.includes(general)) return;
    const needs = allowed.filter((t) => t !== 'uint').join(' or ');
    if (this.settingsAtFault() || this.settingsResultAtFault(allowed)) {
      const read = this.reads.find((r) => r.root === 'settings')!;
      this.report('settings_ref_type', root.start, root.end,
        `the type of settings.${read.path.join('.')} does not fit the place of the expression: it gives ${describeType(type)}, ${needs} is expected here`);
      return;
    }
    this.report('expression_type_error', root.start, root.end, `the expression gives ${describeType(type)}, ${needs} is expected here`);
  }

  /** With `settings` untyped the result would be dyn, which fits: the settings field is what does not. */
  private settingsResultAtFault(allowed: readonly string[]): boolean {
    if (!this.env.settingsAreSettings || this.env.profile.settings === undefined || !this.reads.some((r) => r.root === 'settings')) return false;
    const untyped = checkExpression(this.env.untypedSettings(), this.source, { ...this.options, expected: allowed as CelTypeName[] });
    return untyped.diagnostics.length === 0;
  }
}

/** The names bound at the root of an expression: none. */
const NOTHING_BOUND: ReadonlySet<string> = new Set();

/** Namespaces of functions: `cal.addWorkdays(…)`, `optional.of(…)`, `cel.bind(…)`, `strings.quote(…)` — not variables. */
const NAMESPACES = new Set(['cal', 'optional', 'cel', 'strings']);

function isCalendarCall(node: Node): boolean {
  const receiver = (node.args as [string, Node])[1];
  return receiver?.op === 'id' && receiver.args === 'cal';
}

/** CEL does not mix int and double, and a plain field is never null: say how to write what was meant. */
function operandHint(operands: readonly Node[]): string | undefined {
  const types = operands.map((operand) => operand.checkedType?.name ?? '');
  if (types.includes('null')) return 'a required field is never null, it reads its zero value: compare with its zero value, or make it optional in the schema';
  const numeric = (type: string) => /^(dyn<)?(int|double)>?$/.test(type) || type === 'list<int>' || type === 'list<double>';
  if (types.length === 2 && types.every(numeric) && types[0]!.replace(/dyn<|>/g, '') !== types[1]!.replace(/dyn<|>/g, '')) {
    return 'CEL does not mix int and double: write 100.0 for a double, or convert with double(…) / int(…)';
  }
  return undefined;
}

/** Tokens as an author writes them, for the parser's "Expected RPAREN, got EOF". */
const TOKEN_TEXT: Readonly<Record<string, string>> = {
  EOF: 'the end of the expression', NUMBER: 'a number', STRING: 'a string', BYTES: 'bytes', BOOLEAN: 'true or false',
  NULL: 'null', IDENTIFIER: 'a name', PLUS: "'+'", MINUS: "'-'", MULTIPLY: "'*'", DIVIDE: "'/'", MODULO: "'%'",
  EQ: "'=='", NE: "'!='", LT: "'<'", LE: "'<='", GT: "'>'", GE: "'>='", AND: "'&&'", OR: "'||'", NOT: "'!'",
  IN: "'in'", LPAREN: "'('", RPAREN: "')'", LBRACKET: "'['", RBRACKET: "']'", LBRACE: "'{'", RBRACE: "'}'",
  DOT: "'.'", COMMA: "','", COLON: "':'", QUESTION: "'?'",
};

function syntaxMessage(summary: string): string {
  const token = (name: string) => TOKEN_TEXT[name] ?? name;
  const expected = /^Expected (\w+), got (\w+)$/.exec(summary);
  if (expected !== null) return `expected ${token(expected[1]!)}, found ${token(expected[2]!)}`;
  const unexpected = /^Unexpected token: (\w+)$/.exec(summary);
  if (unexpected !== null) return unexpected[1] === 'EOF' ? 'the expression ends too early' : `unexpected ${token(unexpected[1]!)}`;
  return summary;
}

/** The operators a chain of reads is made of. */
const CHAIN_OPS = new Set(['.', '.?', '[]', '[?]', 'id']);

/** A node that is `root.a.b['c'][0].?d` down to an identifier, with only literal names and indexes — else undefined. */
function accessChain(node: Node): Chain | undefined {
  if (!CHAIN_OPS.has(node.op)) return undefined;
  const segments: Segment[] = [];
  let current = node;
  for (;;) {
    if (current.op === '.' || current.op === '.?') {
      const [left, name] = current.args as [Node, string];
      segments.push({ step: name, start: current.pos, end: current.end, optional: current.op === '.?' });
      current = left;
    } else if (current.op === '[]' || current.op === '[?]') {
      const [left, index] = current.args as [Node, Node];
      const step = literalStep(index);
      if (step === undefined) return undefined;
      segments.push({ step, start: index.start, end: index.end, optional: current.op === '[?]' });
      current = left;
    } else if (current.op === 'id') {
      if (segments.length === 0 && node !== current) return undefined;
      return { root: current as Chain['root'], segments: segments.reverse() };
    } else {
      return undefined;
    }
  }
}

function literalStep(index: Node): PathStep | undefined {
  if (index.op !== 'value') return undefined;
  if (typeof index.args === 'string') return index.args;
  if (typeof index.args === 'bigint') return Number(index.args);
  return undefined;
}

/** The scope an iteration macro opens: its variable, visible from argument `from` on. */
function bindingOf(node: Node & { args: [string, Node, Node[]] }): { name: string; from: number } | undefined {
  const [name, receiver, args] = node.args;
  const first = args[0];
  if (first?.op !== 'id' || typeof first.args !== 'string') return undefined;
  if (COMPREHENSIONS.has(name) && args.length >= 2) return { name: first.args, from: 1 };
  if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && args.length === 3) return { name: first.args, from: 2 };
  return undefined;
}

/** The sub-expressions of a node as written (macro expansions are the library's business). */
function children(node: Node): Node[] {
  const args = node.args;
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [(args as [Node, string])[0]];
    case 'call':
      return (args as [string, Node[]])[1];
    case 'rcall': {
      const [, receiver, list] = args as [string, Node, Node[]];
      return [receiver, ...list];
    }
    case 'map':
      return (args as [Node, Node][]).flat();
    case '!_':
    case '-_':
      return [args as Node];
    default:
      return Array.isArray(args) ? (args as Node[]) : [];
  }
}

/** Library type names as the profile says them: a nullable scalar is its scalar, a message its CEL path. */
function prettyType(name: string): string {
  if (!name.includes('.') && !name.includes('dyn<')) return name;
  return name
    .replaceAll(LIBRARY_TYPE_NAMES.timestamp!, 'timestamp')
    .replaceAll(LIBRARY_TYPE_NAMES.duration!, 'duration')
    .replaceAll(KeyedCalendarNamespace.typeName, 'cal')
    .replaceAll(CalendarNamespace.typeName, 'cal')
    .replace(/dyn<([a-z]+)>/g, '$1')
    .replaceAll(OBJECT_TYPE_PREFIX, '');
}

/** The library's wording in cel-cpp's: "found no matching overload for '_+_' applied to '(int, string)'". */
function prettyMessage(message: string): string {
  const text = prettyType(message).replaceAll(ISO_DURATION_FUNCTION, 'duration').replaceAll(RE2_MATCHES_FUNCTION, 'matches');
  const binary = /^no such overload: (.+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(text);
  if (binary !== null) return `found no matching overload for '${binary[2] === 'in' ? '@in' : `_${binary[2]}_`}' applied to '(${binary[1]}, ${binary[3]})'`;
  const unary = /^no such overload: (!|-)(.+)$/.exec(text);
  if (unary !== null) return `found no matching overload for '${unary[1]}_' applied to '(${unary[2]})'`;
  return text;
}

/** How the core's message names a result: `an object` for messages and maps. */
function describeType(type: string): string {
  const general = generalType(type);
  return general === 'map' ? 'an object' : type;
}

/** `list<string>` → `list`, an object type → `map`, a nullable `string` → `string`: the kind a place judges. */
export function generalType(type: string): string {
  if (SCALAR_TYPES.has(type)) return type;
  const head = type.slice(0, type.indexOf('<'));
  return head === 'list' || head === 'optional' || head === 'dyn' ? head : 'map';
}

const SCALAR_TYPES = new Set(['bool', 'int', 'uint', 'double', 'string', 'bytes', 'timestamp', 'duration', 'null', 'type', 'dyn', 'list', 'map']);
