/**
 * Checking one expression of the `taimen/1` profile: syntax, size, the names it reads, and its type.
 *
 * Codes (the core's where it has them):
 *  - `expression_syntax_error` — the text is not CEL;
 *  - `expression_too_complex` — longer than 4000 characters, nested deeper than 32, or macros (`all`, `exists`,
 *    `exists_one`, `map`, `filter`, `cel.bind`) nested more than 3 deep;
 *  - `now_not_allowed` — `now()`: an expression must give the same result when the instance is replayed;
 *  - `unknown_data_field` — a name under `data` that the data schema does not declare. This holds under `has()`
 *    and `.?` too: they guard against a field that is declared but unset, not against a misspelt one, which
 *    would silently make `has(data.amuont)` false forever;
 *  - `settings_ref_unknown` — `settings.<path>` the package settings do not declare (or no settings at all);
 *  - `settings_ref_type` — a settings field whose type does not fit where it is used;
 *  - `aggregate_outside_metrics` — `count/sum/avg/min/max(…)` in a view expression outside metrics and chart;
 *  - `expression_type_error` — anything else the type checker rejects, an optional left unwrapped at the end,
 *    or a result of another type than the field needs.
 *
 * Offsets and lengths are UTF-16 offsets into the text as written (before `${VAR}` substitution).
 */
import { didYouMean } from '../model/did-you-mean.js';
import { parseDuration } from './duration.js';
import type { CelEnvironment } from './environment.js';
import { AGGREGATES, ISO_DURATION_FUNCTION, LIBRARY_TYPE_NAMES } from './functions.js';
import { substituteVariables, type InstallVariable, type Substituted } from './install-variables.js';
import { describeShape, lookupPath, OBJECT_TYPE_PREFIX, type CelShape } from './types.js';

export type CelCode =
  | 'expression_syntax_error'
  | 'expression_type_error'
  | 'expression_too_complex'
  | 'unknown_data_field'
  | 'settings_ref_unknown'
  | 'settings_ref_type'
  | 'now_not_allowed'
  | 'aggregate_outside_metrics';

/** One line per code, for the rule metadata and the generated page of findings. All are errors. */
export const CEL_CODES: Readonly<Record<CelCode, string>> = {
  expression_syntax_error: 'An expression must be CEL.',
  expression_type_error: 'An expression must type-check in the taimen/1 profile and give the type its field needs.',
  expression_too_complex: 'An expression is at most 4000 characters, nests at most 32 deep, and nests macros at most 3 deep.',
  unknown_data_field: 'An expression reads only data fields that the data schema declares (under has() and .? too).',
  settings_ref_unknown: 'settings.<path> must be a field of the package settings.',
  settings_ref_type: 'A settings field must have the type the place it is used in needs.',
  now_not_allowed: 'An expression may not read the current time: time is event.time or instance.clock.',
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

/** A path an expression reads under `data` or `settings`: `data.purchase.number` → `['purchase', 'number']`. */
export interface PathRead {
  path: string[];
  offset: number;
  length: number;
  /** Read under `has()` or through `.?` — the expression copes with the field being unset. */
  guarded: boolean;
}

export interface CheckResult {
  /** The result type (`bool`, `string`, `list<string>`, `timestamp`, `dyn`, …) when the expression type-checks. */
  type?: string;
  diagnostics: CelDiagnostic[];
  /** Paths read under `data` (for `unwritten_data_field`); `[]` is the whole of `data`. */
  reads: PathRead[];
  /** Paths read under the package `settings`. */
  settingsReads: PathRead[];
}

export const LIMITS = { length: 4000, depth: 32, macroNesting: 3 } as const;

/** Iteration macros whose variable scopes over their later arguments. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** The parts of the library's syntax tree this module reads. */
interface Node {
  op: string;
  args: unknown;
  start: number;
  end: number;
  /** For a field access: where the field name starts. */
  pos: number;
  checkedType?: { name: string };
}

interface Segment {
  name: string;
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
  /** The library's compiled program, present when the expression checked clean. */
  program?: (context: Record<string, unknown>) => unknown;
}

/** What each environment checked: by source text, then by expected type and substituted text. */
const CHECKED = new WeakMap<CelEnvironment, Map<string, Map<string, CheckedExpression>>>();

/** Check an expression in an environment. Results are cached per environment and text: treat them as read-only. */
export function checkExpression(env: CelEnvironment, source: string, options: CheckOptions = {}): CheckResult {
  return checkedExpression(env, source, options).result;
}

/** @internal shared with `evaluate` */
export function checkedExpression(env: CelEnvironment, source: string, options: CheckOptions = {}): CheckedExpression {
  const substituted = substituteVariables(source, options.variables);
  // Keyed first by the source string itself: V8 keeps a string's hash, so the lookup does not rehash the text.
  let checked = CHECKED.get(env);
  if (checked === undefined) CHECKED.set(env, (checked = new Map()));
  let bySource = checked.get(source);
  if (bySource === undefined) checked.set(source, (bySource = new Map()));
  const key = substituted.text === source ? expectedKey(options.expected) : `${expectedKey(options.expected)}\u0000${substituted.text}`;
  let entry = bySource.get(key);
  if (entry === undefined) {
    entry = new Checker(env, source, substituted, options).run();
    bySource.set(key, entry);
  }
  return entry;
}

function expectedKey(expected: CheckOptions['expected']): string {
  return expected === undefined ? '' : typeof expected === 'string' ? expected : expected.join('|');
}

class Checker {
  private readonly diagnostics: CelDiagnostic[] = [];
  private readonly reads: PathRead[] = [];
  private readonly settingsReads: PathRead[] = [];

  constructor(
    private readonly env: CelEnvironment,
    private readonly source: string,
    private readonly substituted: Substituted,
    private readonly options: CheckOptions,
  ) {}

  run(): CheckedExpression {
    if (this.source.length > LIMITS.length) {
      this.report('expression_too_complex', 0, this.source.length,
        `the expression is ${this.source.length} characters long — more than ${LIMITS.length}`,
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
    if (!this.withinLimits(root)) return this.done();
    this.walk(root, new Set());
    if (this.diagnostics.length > 0) return this.done();
    const checked = program.check();
    if (!checked.valid) {
      this.reportLibraryError(checked.error, 'expression_type_error');
      return this.done();
    }
    const type = prettyType(checked.type ?? 'dyn');
    this.checkResultType(root, type);
    return this.diagnostics.length > 0 ? this.done() : this.done(type, program);
  }

  private done(type?: string, program?: CheckedExpression['program']): CheckedExpression {
    const result: CheckResult = { diagnostics: this.diagnostics, reads: this.reads, settingsReads: this.settingsReads };
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

  private withinLimits(root: Node): boolean {
    const { depth, nesting, deepest } = measure(root);
    if (depth > LIMITS.depth) {
      this.report('expression_too_complex', root.start, root.end,
        `the expression nests ${depth} levels deep — more than ${LIMITS.depth}`,
        'split it: compute parts in earlier steps or with cel.bind');
      return false;
    }
    if (nesting > LIMITS.macroNesting) {
      this.report('expression_too_complex', deepest.start, deepest.end,
        `macros (all, exists, map, filter, …) nest ${nesting} deep — more than ${LIMITS.macroNesting}`,
        'flatten the iteration, or prepare the inner lists in earlier steps');
      return false;
    }
    return true;
  }

  /** Reads, forbidden names and literal arguments, in source order. `bound` holds names a macro bound. */
  private walk(node: Node, bound: ReadonlySet<string>, guarded = false): void {
    const chain = accessChain(node);
    if (chain !== undefined) {
      this.chainRead(chain, bound, guarded);
      return;
    }
    switch (node.op) {
      case 'call':
        this.call(node as Node & { args: [string, Node[]] }, bound);
        return;
      case 'rcall':
        this.methodCall(node as Node & { args: [string, Node, Node[]] }, bound);
        return;
      default:
        for (const child of children(node)) this.walk(child, bound);
    }
  }

  private call(node: Node & { args: [string, Node[]] }, bound: ReadonlySet<string>): void {
    const [name, args] = node.args;
    if (name === 'now') this.reportNow(node);
    if (name === 'duration') {
      node.args[0] = ISO_DURATION_FUNCTION;
      this.durationLiteral(args[0]);
    }
    if (name === 'timestamp') this.timestampLiteral(args[0]);
    if ((AGGREGATES as readonly string[]).includes(name) && this.env.profile.kind === 'view' && this.env.profile.aggregates !== true) {
      this.report('aggregate_outside_metrics', node.start, node.end,
        `${name}() aggregates the records of the source — only metrics and chart blocks show aggregates`,
        'move it into a metrics or chart block');
    }
    for (const arg of args) this.walk(arg, bound, name === 'has');
  }

  private methodCall(node: Node & { args: [string, Node, Node[]] }, bound: ReadonlySet<string>): void {
    const [, receiver, args] = node.args;
    const binds = bindingOf(node);
    this.walk(receiver, bound);
    args.forEach((arg, i) => {
      if (binds !== undefined && i === 0) return;
      const scope = binds !== undefined && i >= binds.from ? new Set([...bound, binds.name]) : bound;
      this.walk(arg, scope);
    });
  }

  private chainRead(chain: Chain, bound: ReadonlySet<string>, guarded: boolean): void {
    const name = chain.root.args;
    if (bound.has(name)) return;
    const optional = guarded || chain.segments.some((s) => s.optional);
    if (name === 'data' && this.env.variables.has('data') && this.env.profile.extraVariables?.data === undefined) {
      this.reads.push(this.pathRead(chain, optional));
      this.unknownName(chain, this.env.variables.get('data') as CelShape, 'unknown_data_field');
    } else if (name === 'settings' && this.env.settingsAreSettings) {
      this.settingsReads.push(this.pathRead(chain, optional));
      this.unknownName(chain, this.env.variables.get('settings') as CelShape, 'settings_ref_unknown');
    } else if (name === 'now' && !this.env.variables.has('now')) {
      this.reportNow(chain.root);
    }
  }

  private pathRead(chain: Chain, guarded: boolean): PathRead {
    const last = chain.segments.at(-1);
    const start = chain.root.start;
    const end = last?.end ?? chain.root.end;
    const offset = this.substituted.toOriginal(start);
    return { path: chain.segments.map((s) => s.name), offset, length: this.substituted.toOriginalEnd(end) - offset, guarded };
  }

  private unknownName(chain: Chain, shape: CelShape, code: 'unknown_data_field' | 'settings_ref_unknown'): void {
    const lookup = lookupPath(shape, chain.segments.map((s) => s.name));
    if (!('missing' in lookup)) return;
    const segment = chain.segments[lookup.missing];
    const path = [chain.root.args, ...chain.segments.slice(0, lookup.missing + 1).map((s) => s.name)].join('.');
    const hint = didYouMean(segment.name, lookup.candidates);
    if (code === 'unknown_data_field') {
      const where = this.env.profile.kind === 'process' ? 'spec.data of the process' : 'the data of the source';
      this.report(code, segment.start, segment.end, `${path} is not declared in ${where}`,
        hint ?? `declare '${segment.name}' in the data schema`);
    } else if (this.env.profile.settings === undefined) {
      this.report(code, segment.start, segment.end, `${path}: the package declares no settings`,
        'declare spec.settings in package.yaml');
    } else {
      this.report(code, segment.start, segment.end, `${path} is not a field of the package settings`,
        hint ?? `declare '${segment.name}' in spec.settings.schema of package.yaml`);
    }
  }

  private reportNow(node: Node): void {
    this.report('now_not_allowed', node.start, node.end,
      'now() is not allowed: an expression must give the same result when the instance is replayed',
      'use event.time or instance.clock');
  }

  private durationLiteral(arg: Node | undefined): void {
    if (arg?.op !== 'value' || typeof arg.args !== 'string') return;
    const parsed = parseDuration(arg.args);
    if ('error' in parsed) this.report('expression_type_error', arg.start, arg.end, parsed.error);
  }

  private timestampLiteral(arg: Node | undefined): void {
    if (arg?.op !== 'value' || typeof arg.args !== 'string') return;
    if (RFC3339.test(arg.args) && !Number.isNaN(Date.parse(arg.args))) return;
    this.report('expression_type_error', arg.start, arg.end,
      `'${arg.args}' is not an RFC 3339 timestamp such as '2026-03-01T09:00:00Z'`);
  }

  private reportLibraryError(error: unknown, fallback: CelCode): void {
    const e = error as { code?: string; summary?: string; message?: string; range?: { start: number; end: number }; node?: Node };
    const range = e.range ?? { start: 0, end: this.substituted.text.length };
    const summary = prettyMessage(e.summary ?? e.message ?? String(error));
    if (e.code === 'limit_exceeded') {
      this.report('expression_too_complex', range.start, range.end, `the expression is too large: ${summary}`);
      return;
    }
    if (fallback === 'expression_syntax_error') {
      this.report(fallback, range.start, range.end, syntaxMessage(summary));
      return;
    }
    const settingsOperand = e.node === undefined ? undefined : this.settingsOperand(e.node);
    if (settingsOperand !== undefined) {
      this.report('settings_ref_type', range.start, range.end,
        `settings.${settingsOperand.path} is ${settingsOperand.type} and does not fit here: ${summary}`);
      return;
    }
    this.report('expression_type_error', range.start, range.end, this.typeErrorMessage(e.code, e.node, summary),
      this.typeErrorHint(e.code, e.node));
  }

  /** The library's wording, except where a name is missing: say which name, and in what. */
  private typeErrorMessage(code: string | undefined, node: Node | undefined, summary: string): string {
    if (code === 'unknown_variable' && typeof node?.args === 'string') return `unknown variable '${node.args}'`;
    if (code === 'no_such_key' && (node?.op === '.' || node?.op === '.?') && Array.isArray(node.args)) {
      const receiver = node.args[0] as Node;
      return `${this.substituted.text.slice(receiver.start, receiver.end)} has no field '${node.args[1] as string}'`;
    }
    return summary;
  }

  /** A settings read among the direct operands of the node a type error is about. */
  private settingsOperand(node: Node): { path: string; type: string } | undefined {
    if (!this.env.settingsAreSettings) return undefined;
    for (const operand of operands(node)) {
      const chain = accessChain(operand);
      if (chain === undefined || chain.root.args !== 'settings' || chain.segments.length === 0) continue;
      const lookup = lookupPath(this.env.variables.get('settings') as CelShape, chain.segments.map((s) => s.name));
      if ('found' in lookup) return { path: chain.segments.map((s) => s.name).join('.'), type: describeShape(lookup.found) };
    }
    return undefined;
  }

  private typeErrorHint(code: string | undefined, node: Node | undefined): string | undefined {
    if (node === undefined) return undefined;
    if (code === 'unknown_variable' && typeof node.args === 'string') {
      return didYouMean(node.args, [...this.env.variables.keys(), ...(this.env.profile.kind === 'process' ? ['cal'] : [])]);
    }
    if (code === 'no_such_key' && (node.op === '.' || node.op === '.?') && Array.isArray(node.args)) {
      const receiverType = (node.args[0] as Node).checkedType?.name;
      const fields = [...this.env.objectTypes.values()].find((t) => t.name === receiverType)?.fields ?? [];
      return didYouMean(node.args[1] as string, fields);
    }
    if (code === 'no_such_overload' && Array.isArray(node.args)) return operandHint(node.args as Node[]);
    return undefined;
  }

  private checkResultType(root: Node, type: string): void {
    const general = generalType(type);
    if (general === 'optional') {
      this.report('expression_type_error', root.start, root.end,
        `the expression ends in an optional (${type}) — a field needs a value`,
        "unwrap it: .orValue(<default>) or .value()");
      return;
    }
    const expected = this.options.expected;
    if (expected === undefined || general === 'dyn') return;
    const allowed: readonly string[] = typeof expected === 'string' ? [expected] : expected;
    if (allowed.includes(general)) return;
    const needs = allowed.join(' or ');
    const chain = accessChain(root);
    if (chain !== undefined && chain.root.args === 'settings' && this.env.settingsAreSettings && chain.segments.length > 0) {
      this.report('settings_ref_type', root.start, root.end,
        `settings.${chain.segments.map((s) => s.name).join('.')} is ${type}, but this field needs ${needs}`);
      return;
    }
    this.report('expression_type_error', root.start, root.end, `the expression gives ${type}, but this field needs ${needs}`);
  }
}

/** CEL does not mix int and double, and a declared field is never null: say how to write what was meant. */
function operandHint(operands: readonly Node[]): string | undefined {
  const types = operands.map((operand) => operand.checkedType?.name ?? '');
  if (types.includes('null')) return 'a field is not null, it is unset: test it with has(…)';
  const numeric = (type: string) => type === 'int' || type === 'double' || type === 'list<int>' || type === 'list<double>';
  if (types.length === 2 && types.every(numeric) && types[0] !== types[1]) {
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
  if (expected !== null) return `expected ${token(expected[1])}, found ${token(expected[2])}`;
  const unexpected = /^Unexpected token: (\w+)$/.exec(summary);
  if (unexpected !== null) return unexpected[1] === 'EOF' ? 'the expression ends too early' : `unexpected ${token(unexpected[1])}`;
  return summary;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A node that is `root.a.b['c'].?d` down to an identifier, with only literal names — else undefined. */
function accessChain(node: Node): Chain | undefined {
  const segments: Segment[] = [];
  let current = node;
  for (;;) {
    if (current.op === '.' || current.op === '.?') {
      const [left, name] = current.args as [Node, string];
      segments.push({ name, start: current.pos, end: current.end, optional: current.op === '.?' });
      current = left;
    } else if (current.op === '[]' || current.op === '[?]') {
      const [left, index] = current.args as [Node, Node];
      if (index.op !== 'value' || typeof index.args !== 'string') return undefined;
      segments.push({ name: index.args, start: index.start, end: index.end, optional: current.op === '[?]' });
      current = left;
    } else if (current.op === 'id') {
      if (segments.length === 0 && node !== current) return undefined;
      return { root: current as Chain['root'], segments: segments.reverse() };
    } else {
      return undefined;
    }
  }
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

function isMacroScope(node: Node): boolean {
  return node.op === 'rcall' && bindingOf(node as Node & { args: [string, Node, Node[]] }) !== undefined;
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

/** What a type error about `node` may be blaming. */
function operands(node: Node): Node[] {
  return node.op === '.' || node.op === '.?' ? [] : children(node);
}

/** Nesting depth, macro nesting, and the most deeply nested macro (for the underline). */
function measure(root: Node): { depth: number; nesting: number; deepest: Node } {
  let deepest = root;
  let maxNesting = 0;
  const visit = (node: Node, nesting: number): number => {
    const inner = isMacroScope(node) ? nesting + 1 : nesting;
    if (inner > maxNesting) {
      maxNesting = inner;
      deepest = node;
    }
    let depth = 0;
    for (const child of children(node)) depth = Math.max(depth, visit(child, inner));
    return depth + 1;
  };
  const depth = visit(root, 0);
  return { depth, nesting: maxNesting, deepest };
}

/** Library type names as the profile says them. */
function prettyType(name: string): string {
  if (!name.includes('.')) return name;
  return name
    .replaceAll(LIBRARY_TYPE_NAMES.timestamp, 'timestamp')
    .replaceAll(LIBRARY_TYPE_NAMES.duration, 'duration')
    .replaceAll(OBJECT_TYPE_PREFIX, '');
}

function prettyMessage(message: string): string {
  return prettyType(message).replaceAll(ISO_DURATION_FUNCTION, 'duration');
}

/** `list<string>` → `list`, an object type → `map`, `dyn<int>` → `dyn`. */
function generalType(type: string): string {
  if (SCALAR_TYPES.has(type)) return type;
  const head = type.slice(0, type.indexOf('<'));
  return head === 'list' || head === 'optional' || head === 'dyn' ? head : 'map';
}

const SCALAR_TYPES = new Set(['bool', 'int', 'uint', 'double', 'string', 'bytes', 'timestamp', 'duration', 'null', 'type', 'dyn', 'list', 'map']);
