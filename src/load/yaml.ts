/**
 * The strict YAML 1.2 loader: a package file becomes a JSON value plus the syntax tree that locates any
 * node of it (compat-package-sdk-check.md §1.6). Every problem is an `invalid_yaml` finding at the
 * offending node; nothing is thrown.
 *
 * | code         | severity | when                                                                                |
 * |--------------|----------|-------------------------------------------------------------------------------------|
 * | invalid_yaml | error    | not YAML (syntax), several documents, a non-JSON tag or value (`!!binary`, `.inf`), |
 * |              |          | an integer over 1000 digits, a lone surrogate, a duplicate or non-scalar key,       |
 * |              |          | an unknown anchor, a recursive alias, aliases expanding past 100 000 nodes          |
 */
import { isAlias, isMap, isScalar, isSeq, Lexer, parseDocument } from 'yaml';
import type { Alias, Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Span } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import type { SourceDocument } from '../json/document.js';
import type { LoadResult } from './load-finding.js';
import { lineStartsOf, loadError, positionAt, spanOf } from './load-finding.js';
import { childPointer, pointerSegments } from '../json/pointer.js';
import { mapScalar } from './scalar-offsets.js';
import type { ScalarMap, ScalarStyle } from './scalar-offsets.js';
import { findSuppressions } from './suppressions.js';
import { scanYaml } from './yaml-scan.js';
import type { Scanned, ScannedNode } from './yaml-scan.js';
import { collectionTagAllowed, keyText, NOT_JSON, resolvePlain, resolveTagged, setKey, shortTag } from './yaml-scalars.js';
import type { ScalarResult } from './yaml-scalars.js';

/** Nodes that aliases may add beyond those written (a "billion laughs" file stops here). */
export const ALIAS_EXPANSION_LIMIT = 100_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Parses `text` (the contents of `file`) into a document, or into findings when it is not a package's YAML. */
export function parseYaml(text: string, file: string): LoadResult {
  const scanned = scanYaml(text);
  if (scanned !== undefined) return { document: new ScannedDocument(file, text, scanned), findings: [] };
  return parseYamlFully(text, file);
}

/** The full parser: every file the scanner gives up on, and every finding of bad YAML. */
export function parseYamlFully(text: string, file: string): LoadResult {
  const lineStarts = lineStartsOf(text);
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, {
      schema: 'failsafe', // every scalar stays text: the package rules below decide what it is
      resolveKnownTags: false,
      uniqueKeys: false, // duplicates are found after keys are resolved (`012` and `12` are one key)
      prettyErrors: false,
      keepSourceTokens: false,
    });
  } catch (error) {
    return { findings: [tooDeep(error, file)] };
  }
  if (doc.errors.length > 0) {
    return {
      findings: doc.errors.map((e) => {
        const opening = e.code === 'MISSING_CHAR' ? unclosedQuoteAt(text, e.message) : undefined;
        const span = opening === undefined ? spanOf(lineStarts, e.pos[0], e.pos[1]) : spanOf(lineStarts, opening, opening + 1);
        return loadError('invalid_yaml', file, span, '', sentence(e.message));
      }),
    };
  }
  const builder = new ValueBuilder(file, text, lineStarts);
  let value: unknown;
  try {
    value = builder.build(doc.contents, '');
  } catch (error) {
    return { findings: [tooDeep(error, file)] };
  }
  builder.finish();
  if (builder.findings.length > 0) return { findings: builder.findings };
  return { document: new YamlDocument(file, text, value, builder, doc, lineStarts), findings: [] };
}

/** Tokens of the yaml lexer that mark structure and take no place in the text. */
const CONTROL_TOKENS = new Set(['\x02', '\x18', '\x1f']);

/**
 * The offset of the opening quote of a quoted scalar that is never closed: the parser reports it at the end of
 * the file, where it ran out of text, but the mistake is where the scalar began.
 */
function unclosedQuoteAt(text: string, message: string): number | undefined {
  const quote = /closing (["'])quote/.exec(message)?.[1];
  if (quote === undefined) return undefined;
  let offset = 0;
  let opening: number | undefined;
  for (const token of new Lexer().lex(text)) {
    if (CONTROL_TOKENS.has(token)) continue;
    if (token.startsWith(quote) && !isClosed(token, quote)) opening = offset;
    offset += token.length;
  }
  return opening;
}

/** Whether a quoted scalar's token ends with its closing quote (not an escaped one). */
function isClosed(token: string, quote: string): boolean {
  if (token.length < 2 || !token.endsWith(quote)) return false;
  if (quote === "'") return true;
  const escapes = /\\*$/.exec(token.slice(0, -1))?.[0].length ?? 0;
  return escapes % 2 === 0;
}

/** A document nested so deeply that walking it exhausts the stack is refused like any other bad input. */
function tooDeep(error: unknown, file: string): Finding {
  if (!(error instanceof RangeError)) throw error;
  return loadError('invalid_yaml', file, { line: 1, column: 1 }, '', 'the document is nested too deeply');
}

function sentence(message: string): string {
  if (/call stack/i.test(message)) return 'the document is nested too deeply';
  return message.replace(/\s+at line \d+, column \d+[\s\S]*$/, '').trim();
}

function isMergeKey(key: unknown): boolean {
  return (
    isScalar(key) &&
    key.value === '<<' &&
    key.type === 'PLAIN' &&
    (key.tag === undefined || key.tag === 'tag:yaml.org,2002:merge')
  );
}

function scalarResult(node: Scalar): ScalarResult {
  const text = String(node.value);
  if (node.tag !== undefined) return resolveTagged(node.tag, text);
  return node.type === 'PLAIN' ? resolvePlain(text) : { value: text };
}

/** Turns the syntax tree into the JSON value, applying the scalar rules and the alias limits. */
class ValueBuilder {
  readonly findings: Finding[] = [];
  readonly floats = new Set<string>();
  /** Offsets of quoted and block scalars, in document order (a `#` there is not a comment). */
  readonly textRanges: [number, number][] = [];
  readonly anchors = new Map<string, Node>();
  private readonly active = new Set<Node>();
  private readonly sizes = new Map<Node, number>();
  /** Above zero while copying an alias's target: its problems were reported where it is written. */
  private expansion = 0;
  private extraNodes = 0;
  private overLimit?: { node: Alias; pointer: string };

  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly lineStarts: readonly number[],
  ) {}

  build(node: unknown, pointer: string): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.alias(node, pointer);
    const anchored = node as Node;
    if (anchored.anchor !== undefined && this.expansion === 0) this.anchors.set(anchored.anchor, anchored);
    if (isScalar(node)) return this.scalar(node, pointer);
    if (isMap(node)) return this.within(node, () => this.map(node as YAMLMap.Parsed, pointer));
    if (isSeq(node)) return this.within(node, () => this.seq(node as YAMLSeq.Parsed, pointer));
    return null;
  }

  finish(): void {
    if (this.overLimit !== undefined) {
      const { node, pointer } = this.overLimit;
      this.report(node, pointer, `aliases expand into ${this.extraNodes} more nodes — over the limit ${ALIAS_EXPANSION_LIMIT}`, true);
    }
  }

  /** The key of a mapping entry as text, without reporting anything (for lookups). */
  keyOf(key: unknown): string | undefined {
    const node = isAlias(key) ? this.anchors.get(key.source) : key;
    if (node === null || node === undefined) return 'null';
    if (!isScalar(node)) return undefined;
    const result = scalarResult(node);
    return 'error' in result ? undefined : keyText(result.value, result.float);
  }

  private within<T>(node: Node, build: () => T): T {
    this.active.add(node);
    try {
      return build();
    } finally {
      this.active.delete(node);
    }
  }

  private scalar(node: Scalar, pointer: string): unknown {
    const style = node.type as ScalarStyle | undefined;
    if (style !== 'PLAIN' && this.expansion === 0 && node.range) this.textRanges.push([node.range[0], node.range[1]]);
    const result = scalarResult(node);
    if ('error' in result) return this.report(node, pointer, result.error);
    if (result.float && Number.isInteger(result.value)) this.floats.add(pointer);
    if (style === 'QUOTE_DOUBLE' && LONE_SURROGATE.test(result.value as string)) {
      return this.report(node, pointer, `the string holds a lone surrogate (an unpaired \\uD800–\\uDFFF): ${NOT_JSON}`);
    }
    return result.value;
  }

  private map(node: YAMLMap.Parsed, pointer: string): unknown {
    if (!collectionTagAllowed(node.tag, 'map')) return this.report(node, pointer, `value tagged ${shortTag(node.tag!)}: ${NOT_JSON}`);
    const result: Record<string, unknown> = {};
    const ownKeys = new Set<string>();
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) continue;
      const key = this.keyOf(pair.key);
      if (key !== undefined) ownKeys.add(key);
    }
    const seen = new Map<string, Pair>();
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) {
        this.merge(pair.value, pointer, result, ownKeys);
        continue;
      }
      const key = this.key(pair.key, pointer);
      if (key === undefined) continue;
      const first = seen.get(key);
      if (first !== undefined) {
        const at = positionAt(this.lineStarts, (first.key as Node).range![0]);
        this.report(pair.key as Node, childPointer(pointer, key), `duplicate key '${key}' (first at line ${at.line}, column ${at.column})`);
        continue;
      }
      seen.set(key, pair);
      setKey(result, key, this.build(pair.value, childPointer(pointer, key)));
    }
    return result;
  }

  /** A reported mapping key; undefined when the key is not a JSON scalar. */
  private key(key: unknown, pointer: string): string | undefined {
    const node = isAlias(key) ? this.anchors.get(key.source) : key;
    if (node === null || node === undefined) return 'null';
    if (!isScalar(node)) {
      this.report(key as Node, pointer, `a mapping key must be a string, a number, a boolean or null: ${NOT_JSON}`);
      return undefined;
    }
    const result = scalarResult(node);
    if ('error' in result) {
      this.report(key as Node, pointer, result.error);
      return undefined;
    }
    if (node.type === 'QUOTE_DOUBLE' && LONE_SURROGATE.test(String(result.value))) {
      this.report(key as Node, pointer, `the key holds a lone surrogate (an unpaired \\uD800–\\uDFFF): ${NOT_JSON}`);
      return undefined;
    }
    return keyText(result.value, result.float);
  }

  /** `<<: *base` or `<<: [*a, *b]`: keys written in the mapping win, then earlier sources over later ones. */
  private merge(value: unknown, pointer: string, into: Record<string, unknown>, ownKeys: ReadonlySet<string>): void {
    const sources = isSeq(value) ? value.items : [value];
    for (const source of sources) {
      const target = isAlias(source) ? this.anchors.get(source.source) : source;
      if (!isMap(target)) {
        this.report((source ?? value) as Node, pointer, 'a merge key << takes a mapping, an alias of one, or a list of them');
        continue;
      }
      const merged = this.build(source, pointer);
      if (merged === null || typeof merged !== 'object') continue;
      for (const [key, entry] of Object.entries(merged)) {
        if (ownKeys.has(key) || Object.prototype.hasOwnProperty.call(into, key)) this.dropFloats(childPointer(pointer, key));
        else setKey(into, key, entry);
      }
    }
  }

  private dropFloats(prefix: string): void {
    for (const pointer of this.floats) {
      if (pointer === prefix || pointer.startsWith(`${prefix}/`)) this.floats.delete(pointer);
    }
  }

  private seq(node: YAMLSeq.Parsed, pointer: string): unknown {
    if (!collectionTagAllowed(node.tag, 'seq')) return this.report(node, pointer, `value tagged ${shortTag(node.tag!)}: ${NOT_JSON}`);
    return node.items.map((item, index) => this.build(item, childPointer(pointer, index)));
  }

  private alias(node: Alias, pointer: string): unknown {
    const target = this.anchors.get(node.source);
    if (target === undefined) return this.report(node, pointer, `unknown anchor '${node.source}': an alias refers to an anchor (&${node.source}) written before it`);
    if (this.active.has(target)) return this.report(node, pointer, 'recursive alias: the node contains itself');
    // The size of the outermost alias already counts the aliases nested in its target.
    if (this.expansion === 0) this.extraNodes += this.sizeOf(target, new Set());
    if (this.extraNodes > ALIAS_EXPANSION_LIMIT) {
      this.overLimit ??= { node, pointer };
      return null;
    }
    this.expansion++;
    try {
      return this.build(target, pointer);
    } finally {
      this.expansion--;
    }
  }

  /** Nodes of the tree under `node`, aliases counted as what they expand to. */
  private sizeOf(node: unknown, visiting: Set<unknown>): number {
    if (node === null || node === undefined || visiting.has(node)) return 1;
    if (isAlias(node)) return this.sizeOf(this.anchors.get(node.source), visiting);
    const known = this.sizes.get(node as Node);
    if (known !== undefined) return known;
    visiting.add(node);
    let size = 1;
    if (isMap(node)) for (const pair of node.items) size += this.sizeOf(pair.key, visiting) + this.sizeOf(pair.value, visiting);
    else if (isSeq(node)) for (const item of node.items) size += this.sizeOf(item, visiting);
    visiting.delete(node);
    this.sizes.set(node as Node, size);
    return size;
  }

  private report(node: Node, pointer: string, message: string, always = false): null {
    if (this.expansion > 0 && !always) return null;
    const [start, end] = node.range ?? [0, 0];
    const from = node.tag === undefined ? start : propertyStart(this.text, start);
    this.findings.push(loadError('invalid_yaml', this.file, spanOf(this.lineStarts, from, end), pointer, message));
    return null;
  }
}

/**
 * Where a tagged node starts: the parser's range begins after the tag (and the anchor), but the tag
 * is what a finding about it must underline. Scans back over `!tag` and `&anchor` before `start`.
 */
function propertyStart(text: string, start: number): number {
  let from = start;
  for (let properties = 0; properties < 2; properties++) {
    let end = from;
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    let begin = end;
    while (begin > 0 && !/[\s,[{:]/.test(text[begin - 1]!)) begin--;
    if (begin === end || (text[begin] !== '!' && text[begin] !== '&')) break;
    from = begin;
  }
  return from;
}

/**
 * Where the characters of a document's strings are written, mapped once per pointer (a finding locates its start
 * and its end, and an expression may have several findings); a string without a map is located whole.
 */
class ScalarPlaces {
  private maps?: Map<string, ScalarMap | undefined>;

  constructor(private readonly mapOf: (pointer: string) => ScalarMap | undefined) {}

  locate(document: SourceDocument, lineStarts: readonly number[], pointer: string, offset: number): Span {
    this.maps ??= new Map();
    if (!this.maps.has(pointer)) this.maps.set(pointer, this.mapOf(pointer));
    const map = this.maps.get(pointer);
    return map === undefined ? document.locate(pointer) : spanInScalar(lineStarts, map, offset);
  }
}

/** A loaded YAML file: the value, and the tree kept to locate nodes of it. */
class YamlDocument implements SourceDocument {
  readonly floats: ReadonlySet<string>;
  readonly suppressions: ReadonlyMap<number, readonly string[]>;
  private readonly root: unknown;
  private readonly anchors: ReadonlyMap<string, Node>;
  private readonly scalars = new ScalarPlaces((pointer) => this.scalarMap(pointer));

  constructor(
    readonly file: string,
    readonly text: string,
    readonly value: unknown,
    private readonly builder: ValueBuilder,
    doc: Document.Parsed,
    private readonly lineStarts: readonly number[],
  ) {
    this.floats = builder.floats;
    this.root = doc.contents;
    this.anchors = builder.anchors;
    this.suppressions = findSuppressions(text, lineStarts, builder.textRanges);
  }

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const found = this.find(pointer);
    const useKey = found.key !== undefined && (part === 'key' || !found.complete || !hasRange(found.node));
    const at = useKey ? found.key : found.node;
    if (!hasRange(at)) return { line: 1, column: 1 };
    return spanOf(this.lineStarts, at.range[0], at.range[1]);
  }

  locateInScalar(pointer: string, offset: number): Span {
    return this.scalars.locate(this, this.lineStarts, pointer, offset);
  }

  includes(needle: string): boolean {
    return this.text.includes(needle);
  }

  /** Where each character of the string at `pointer` is written, or undefined when it is no scalar string whose text the map rebuilds. */
  private scalarMap(pointer: string): ScalarMap | undefined {
    const found = this.find(pointer);
    const node = isAlias(found.node) ? this.anchors.get(found.node.source) : found.node;
    let map: ScalarMap | undefined;
    if (found.complete && isScalar(node) && hasRange(node) && node.type !== undefined) {
      const expected = String(node.value);
      map = mapScalar(this.text, node.range[0], node.range[1], node.type as ScalarStyle).find((m) => m.value === expected);
    }
    return map;
  }

  /** The node at `pointer`, or the deepest node on its way (`complete: false`). */
  private find(pointer: string): { node: unknown; key?: unknown; complete: boolean } {
    let node: unknown = this.root;
    let key: unknown;
    for (const segment of pointerSegments(pointer)) {
      const next = this.child(node, segment);
      if (next === undefined) return { node, key, complete: false };
      ({ node, key } = next);
    }
    return { node, key, complete: true };
  }

  private child(parent: unknown, segment: string, visiting = new Set<unknown>()): { node: unknown; key?: unknown } | undefined {
    const node = isAlias(parent) ? this.anchors.get(parent.source) : parent;
    if (visiting.has(node)) return undefined;
    visiting.add(node);
    if (isSeq(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      const item = node.items[Number(segment)];
      return item === undefined ? undefined : { node: item };
    }
    if (!isMap(node)) return undefined;
    const merges: unknown[] = [];
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) merges.push(...(isSeq(pair.value) ? pair.value.items : [pair.value]));
      else if (this.builder.keyOf(pair.key) === segment) return { node: pair.value, key: pair.key };
    }
    for (const source of merges) {
      const found = this.child(source, segment, visiting);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/** The span of the character at `offset` of a string whose characters `map` places (its end: the place after it). */
function spanInScalar(lineStarts: readonly number[], map: ScalarMap, offset: number): Span {
  const index = Math.max(0, Math.min(offset, map.value.length));
  const at = map.offsets[index]!;
  return spanOf(lineStarts, at, index < map.value.length ? at + 1 : at);
}

function hasRange(node: unknown): node is Node & { range: [number, number, number] } {
  return node !== null && typeof node === 'object' && Array.isArray((node as Node).range);
}

/** Shared by the documents that have none: an empty set or map per file is a good part of a small file's memory. */
const NO_FLOATS: ReadonlySet<string> = new Set();
const NO_SUPPRESSIONS: ReadonlyMap<number, readonly string[]> = new Map();

/**
 * A file the scanner read: the value and what the suppressions need, nothing more. Where its nodes are
 * written is scanned again the first time a finding asks — most files of a large package get none.
 */
class ScannedDocument implements SourceDocument {
  readonly value: unknown;
  readonly floats: ReadonlySet<string>;
  readonly suppressions: ReadonlyMap<number, readonly string[]>;
  private nodes?: ReadonlyMap<string, ScannedNode>;
  private lineStarts?: readonly number[];
  private readonly scalars = new ScalarPlaces((pointer) => this.scalarMap(pointer));

  constructor(
    readonly file: string,
    readonly text: string,
    scanned: Scanned,
  ) {
    this.value = scanned.value;
    this.floats = scanned.floats.size > 0 ? scanned.floats : NO_FLOATS;
    const suppressions = text.includes('package-sdk-disable-next-line') ? findSuppressions(text, this.lines(), scanned.textRanges) : undefined;
    this.suppressions = suppressions?.size ? suppressions : NO_SUPPRESSIONS;
  }

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const { node, complete } = this.find(pointer);
    const useKey = node.keyStart !== undefined && (part === 'key' || !complete);
    return useKey ? spanOf(this.lines(), node.keyStart!, node.keyEnd!) : spanOf(this.lines(), node.start, node.end);
  }

  locateInScalar(pointer: string, offset: number): Span {
    return this.scalars.locate(this, this.lines(), pointer, offset);
  }

  includes(needle: string): boolean {
    return this.text.includes(needle);
  }

  /** Where each character of the string at `pointer` is written, or undefined when it is no scalar string. */
  private scalarMap(pointer: string): ScalarMap | undefined {
    const { node, complete } = this.find(pointer);
    return complete && node.style !== undefined ? mapScalar(this.text, node.start, node.end, node.style).find((m) => m.value === node.text) : undefined;
  }

  /** The node at `pointer`, or the deepest node on its way (`complete: false`). */
  private find(pointer: string): { node: ScannedNode; complete: boolean } {
    this.nodes ??= scanYaml(this.text, true)!.nodes!;
    let at = pointer;
    for (;;) {
      const node = this.nodes.get(at);
      if (node !== undefined) return { node, complete: at === pointer };
      at = at.slice(0, Math.max(0, at.lastIndexOf('/')));
    }
  }

  private lines(): readonly number[] {
    return (this.lineStarts ??= lineStartsOf(this.text));
  }
}
