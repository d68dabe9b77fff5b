/**
 * An edit of one YAML file that keeps everything it does not change byte for byte: comments, blank lines,
 * key order, quoting, flow style, indentation. The change is made on the `yaml` library's Document (the
 * intended document), and the same change is written into the text at the places the parsed Document gives
 * (node ranges): a new sequence item or mapping pair goes after its neighbour, a replaced value over the
 * old one, each fragment rendered by the library in the file's own style (its indentation, whether sequences
 * are indented under their key, flow padding) and with the quoting rules of init and add.
 *
 * The text is then parsed again and must hold exactly the intended document; when it does not (a change
 * inside a part that is itself new, an exotic layout), the intended Document is written whole instead —
 * still the library's rendering with comments kept, only less faithful to spacing.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isPair, isScalar, isSeq, parseDocument, Scalar, visit, type Node, type Pair } from 'yaml';
import { childPointer } from '../../json/pointer.js';
import { Refusal } from '../../fs/refusal.js';
import { styleAuthored, isPlainSafe } from '../yaml-writer.js';

export type Path = readonly (string | number)[];

interface Splice {
  start: number;
  end: number;
  text: string;
}

/** How the file writes what it writes: the fragments an edit adds follow it. */
export interface FileStyle {
  /** Spaces per nesting level. */
  indent: number;
  /** `key:\n  - item` (true) or `key:\n- item` (false). */
  indentSeq: boolean;
  /** `{ a: 1 }` (true) or `{a: 1}` (false). */
  flowPadding: boolean;
}

type Ranged = Node & { range?: [number, number, number] | null; flow?: boolean };

export class YamlEdit {
  private readonly parsed: Document.Parsed;
  /** The document as the edit wants it; the text must parse to it. */
  readonly intended: Document;
  readonly style: FileStyle;
  private readonly splices: Splice[] = [];
  /** Set when a change could not be placed in the text: the intended document is written whole. */
  private whole = false;

  constructor(readonly file: string, readonly text: string) {
    this.parsed = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
    if (this.parsed.errors.length > 0) {
      throw new Refusal('invalid_yaml', `${file}: not YAML: ${this.parsed.errors[0]!.message}`, { hint: 'fix the file (package-sdk check names the line) before editing it' });
    }
    this.intended = this.parsed.clone();
    this.style = styleOf(this.parsed, text);
  }

  /** The value at `path` as the edit has it so far (undefined when absent). */
  get(path: Path): unknown {
    const node = path.length === 0 ? this.intended.contents : this.intended.getIn(path, true);
    return node === undefined || node === null ? undefined : isScalar(node) ? node.value : (node as { toJSON(): unknown }).toJSON();
  }

  /** Sets the value at `path`, creating the mappings above it that are missing. */
  set(path: Path, value: unknown): void {
    if (path.length === 0) throw new Error('set needs a path below the document');
    this.intended.setIn(path, this.node(value));
    this.placeSet(path, value);
  }

  /** Inserts `value` into the sequence at `path` before index `index` (its length: at the end); creates the sequence when missing. */
  insert(path: Path, index: number, value: unknown): void {
    const seq = this.intended.getIn(path, true);
    if (seq === undefined || seq === null || (isScalar(seq) && seq.value === null)) {
      this.set(path, [value]);
      return;
    }
    if (!isSeq(seq)) throw new Refusal('edit_target_invalid', `${this.file}: ${pointerOf(path)} is not a list`);
    seq.items.splice(index, 0, this.node(value));
    this.placeInsert(path, index, value);
  }

  /** Replaces the string scalar at `path` (a value) by `value`, keeping its quoting where it can. */
  replaceString(path: Path, value: string): void {
    const node = this.intended.getIn(path, true);
    if (!isScalar(node)) throw new Error(`no scalar at ${pointerOf(path)}`);
    node.value = value;
    const original = this.parsed.getIn(path, true) as Ranged | undefined;
    if (!isScalar(original) || !original.range) return this.wholeFile();
    this.splice(original.range[0], original.range[1], this.scalarText(original, value));
  }

  /** Renames the key `from` of the mapping at `path` to `to`, in place. */
  renameKey(path: Path, from: string, to: string): void {
    const pairOf = (doc: Document): Pair | undefined => {
      const map = path.length === 0 ? doc.contents : doc.getIn(path, true);
      return isMap(map) ? map.items.find((pair) => isScalar(pair.key) && pair.key.value === from) : undefined;
    };
    const pair = pairOf(this.intended);
    if (!pair || !isScalar(pair.key)) throw new Error(`no key ${from} at ${pointerOf(path)}`);
    pair.key.value = to;
    const original = pairOf(this.parsed)?.key as Ranged | undefined;
    if (!isScalar(original) || !original.range) return this.wholeFile();
    this.splice(original.range[0], original.range[1], this.scalarText(original, to, true));
  }

  /** The edited text: the splices when they give the intended document, else the intended document written whole. */
  toString(): string {
    const wanted = this.intended.toJS() as unknown;
    if (!this.whole) {
      const text = this.spliced();
      if (text !== undefined && isDeepStrictEqual(jsonOf(text), wanted)) return text;
    }
    return this.intended.toString({ indent: this.style.indent, indentSeq: this.style.indentSeq, flowCollectionPadding: this.style.flowPadding, lineWidth: 0 });
  }

  // --- placing changes in the text ---------------------------------------------------------------------------

  private placeSet(path: Path, value: unknown): void {
    const parentPath = path.slice(0, -1);
    const key = path[path.length - 1]!;
    const parent = (parentPath.length === 0 ? this.parsed.contents : this.parsed.getIn(parentPath, true)) as Ranged | undefined | null;
    if (parent === undefined || parent === null || (isScalar(parent) && parent.value === null)) {
      // The parent is new too: set it whole, holding the new value.
      if (parentPath.length === 0) return this.wholeFile();
      this.placeSet(parentPath, typeof key === 'number' ? [value] : { [key]: value });
      return;
    }
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === key);
      if (pair) return this.replaceValue(pair, value);
      return this.addPair(parent, parentPath, String(key), value);
    }
    if (isSeq(parent) && typeof key === 'number' && key < parent.items.length) {
      const item = parent.items[key] as Ranged;
      if (parent.flow) return this.rerenderFlow(parent, parentPath);
      return this.replaceNode(item, value);
    }
    this.wholeFile();
  }

  private replaceValue(pair: Pair, value: unknown): void {
    const node = pair.value as Ranged | null;
    const keyEnd = (pair.key as Ranged).range?.[1];
    if (keyEnd === undefined) return this.wholeFile();
    const colon = this.text.indexOf(':', keyEnd);
    if (!node || !node.range || (isScalar(node) && node.value === null && node.range[0] === node.range[1])) {
      // `key:` with nothing after it
      const end = colon + 1;
      return this.splice(end, end, this.afterKey(value, this.columnOf((pair.key as Ranged).range![0])));
    }
    if (isScalar(node) && !isCollection(value)) return this.splice(node.range[0], node.range[1], this.scalarText(node, value));
    const column = this.columnOf((pair.key as Ranged).range![0]);
    const endsLine = this.text[node.range[1] - 1] === '\n';
    const end = node.range[1];
    let text = this.afterKey(value, column);
    if (endsLine && !text.endsWith('\n')) text += '\n';
    if (!endsLine && text.endsWith('\n')) text = text.slice(0, -1);
    this.splice(colon + 1, end, text);
  }

  /** What follows `key:` for `value`: ` scalar`, ` {flow}`, or a block on the lines below. */
  private afterKey(value: unknown, keyColumn: number): string {
    if (!isCollection(value) || isEmptyCollection(value)) return ` ${this.inline(value)}`;
    return `\n${this.block(value, keyColumn + (Array.isArray(value) && !this.style.indentSeq ? 0 : this.style.indent), true)}`;
  }

  private replaceNode(node: Ranged, value: unknown): void {
    if (!node.range) return this.wholeFile();
    if (isScalar(node) && !isCollection(value)) return this.splice(node.range[0], node.range[1], this.scalarText(node, value));
    const column = this.columnOf(node.range[0]);
    let text = isCollection(value) && !isEmptyCollection(value) ? this.block(value, column, false) : this.inline(value);
    const endsLine = this.text[node.range[1] - 1] === '\n';
    if (endsLine && !text.endsWith('\n')) text += '\n';
    if (!endsLine && text.endsWith('\n')) text = text.slice(0, -1);
    this.splice(node.range[0], node.range[1], text);
  }

  private addPair(map: Ranged & { items: Pair[] }, path: Path, key: string, value: unknown): void {
    if (map.flow) return this.rerenderFlow(map, path);
    const last = map.items[map.items.length - 1];
    const first = map.items[0];
    if (!last || !first) return this.wholeFile();
    const column = this.columnOf((first.key as Ranged).range![0]);
    const at = this.lineEndAfter(last);
    // Next to values written in flow style (`decision: {type: string}`) the new one is written so too.
    const collections = map.items.map((pair) => pair.value).filter((item) => isMap(item) || isSeq(item));
    const text = isCollection(value) && collections.length > 0 && collections.every(isFlowCollection)
      ? `${' '.repeat(column)}${this.scalarText(new Scalar(key), key, true)}: ${this.inline(value)}\n`
      : this.block({ [key]: value }, column, true);
    this.splice(at.offset, at.offset, `${at.prefix}${text}`);
  }

  private placeInsert(path: Path, index: number, value: unknown): void {
    const seq = this.parsed.getIn(path, true) as (Ranged & { items: Ranged[] }) | undefined;
    if (!isSeq(seq) || !seq.range) return this.wholeFile();
    if (seq.items.length === 0) return this.placeSet(path, [value]);
    if (seq.flow) return this.rerenderFlow(seq, path);
    const column = this.columnOf(seq.range[0]);
    // Among items written in flow style (`- {when: …, then: …}`) the new one is written so too.
    const text = isCollection(value) && seq.items.every(isFlowCollection) ? `${' '.repeat(column)}- ${this.inline(value)}\n` : this.block([value], column, true);
    if (index === 0) {
      const start = this.text.lastIndexOf('\n', seq.range[0] - 1) + 1;
      return this.splice(start, start, text);
    }
    const at = this.lineEndAfter(seq.items[Math.min(index, seq.items.length) - 1]!);
    this.splice(at.offset, at.offset, `${at.prefix}${text}`);
  }

  /** A flow collection is written again in flow style, from the intended document. */
  private rerenderFlow(node: Ranged, path: Path): void {
    const intended = path.length === 0 ? this.intended.contents : this.intended.getIn(path, true);
    const doc = new Document(intended);
    this.splice(node.range![0], node.range![1], doc.toString({ flowCollectionPadding: this.style.flowPadding, lineWidth: 0 }).replace(/\n$/, ''));
  }

  /** Where a line after `item` (a sequence item or a mapping pair) starts; `prefix` when the file ends without a newline. */
  private lineEndAfter(item: Ranged | Pair): { offset: number; prefix: string } {
    const node = (isPair(item) ? (item.value ?? item.key) : item) as Ranged;
    const end = node.range![1];
    if (this.text[end - 1] === '\n') return { offset: end, prefix: '' };
    const newline = this.text.indexOf('\n', end);
    return newline < 0 ? { offset: this.text.length, prefix: '\n' } : { offset: newline + 1, prefix: '' };
  }

  // --- rendering ---------------------------------------------------------------------------------------------

  /** A node of the intended document for a plain value, styled as init and add write. */
  private node(value: unknown): Node {
    const node = this.intended.createNode(value) as Node;
    styleAuthored(node);
    return node;
  }

  /** `value` as block YAML, each line indented by `column` (the first one too when `indentFirst`). */
  private block(value: unknown, column: number, indentFirst: boolean): string {
    const doc = new Document(value);
    styleAuthored(doc.contents as Node);
    const text = doc.toString({ indent: this.style.indent, indentSeq: this.style.indentSeq, flowCollectionPadding: this.style.flowPadding, lineWidth: 0 });
    const pad = ' '.repeat(column);
    return text.replace(/\n$/, '').split('\n').map((line, index) => (line === '' || (index === 0 && !indentFirst) ? line : pad + line)).join('\n') + '\n';
  }

  /** `value` on one line (a scalar or a flow collection). */
  private inline(value: unknown): string {
    const doc = new Document(value);
    styleAuthored(doc.contents as Node);
    if (isMap(doc.contents) || isSeq(doc.contents)) doc.contents.flow = true;
    return doc.toString({ flowCollectionPadding: this.style.flowPadding, lineWidth: 0 }).replace(/\n$/, '');
  }

  /** A scalar written in the style of the one it replaces: its quotes kept where they read back the same. */
  private scalarText(original: Scalar, value: unknown, isKey = false): string {
    if (typeof value !== 'string') return this.inline(value);
    const scalar = new Scalar(value);
    const quoted = original.type === Scalar.QUOTE_SINGLE || original.type === Scalar.QUOTE_DOUBLE;
    if (/[\n\r\t]/.test(value)) scalar.type = Scalar.QUOTE_DOUBLE;
    else if (quoted) scalar.type = original.type;
    else if (isPlainSafe(value)) scalar.type = Scalar.PLAIN;
    else scalar.type = isKey ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE;
    return new Document(scalar).toString({ lineWidth: 0 }).replace(/\n$/, '');
  }

  private columnOf(offset: number): number {
    return offset - (this.text.lastIndexOf('\n', offset - 1) + 1);
  }

  private splice(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text });
  }

  private wholeFile(): void {
    this.whole = true;
  }

  /** The text with every splice made; undefined when two of them overlap. */
  private spliced(): string | undefined {
    const ordered = this.splices.map((splice, order) => ({ ...splice, order })).sort((a, b) => b.start - a.start || b.order - a.order);
    let text = this.text;
    let limit = Infinity;
    for (const splice of ordered) {
      if (splice.end > limit) return undefined;
      text = text.slice(0, splice.start) + splice.text + text.slice(splice.end);
      limit = splice.start;
    }
    return text;
  }
}

function jsonOf(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true });
  return doc.errors.length > 0 ? Symbol('not YAML') : (doc.toJS() as unknown);
}

function isCollection(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

function isFlowCollection(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && node.flow === true;
}

function isEmptyCollection(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isCollection(value) && Object.keys(value as object).length === 0;
}

/** `/spec/stages/0` for a path. */
export function pointerOf(path: Path): string {
  return path.reduce<string>((pointer, part) => childPointer(pointer, part), '');
}

/** The indentation, sequence indentation and flow padding the file uses (the library's defaults where it shows none). */
function styleOf(doc: Document.Parsed, text: string): FileStyle {
  const style: Partial<FileStyle> = {};
  const column = (offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key as Ranged | null;
      const value = pair.value as Ranged | null;
      if (!key?.range || !value?.range || (value as { flow?: boolean }).flow) return;
      if (style.indent === undefined && isMap(value) && value.items.length > 0) {
        const child = value.items[0]!.key as Ranged;
        if (child.range) style.indent = column(child.range[0]) - column(key.range[0]);
      }
      if (style.indentSeq === undefined && isSeq(value) && value.items.length > 0) style.indentSeq = column(value.range[0]) > column(key.range[0]);
    },
    Map(_, map) {
      if (style.flowPadding === undefined && map.flow && map.items.length > 0 && (map as Ranged).range) style.flowPadding = text[(map as Ranged).range![0] + 1] === ' ';
    },
    Seq(_, seq) {
      if (style.flowPadding === undefined && seq.flow && seq.items.length > 0 && (seq as Ranged).range) style.flowPadding = text[(seq as Ranged).range![0] + 1] === ' ';
    },
  });
  return { indent: style.indent && style.indent > 0 ? style.indent : 2, indentSeq: style.indentSeq ?? true, flowPadding: style.flowPadding ?? false };
}
