/**
 * The YAML that `init` and `add` write: block style, short lists of scalars in flow style, and a string
 * left unquoted only when every reader of package files takes it for that same string — the core's
 * YAML 1.2 rules, YAML 1.1 (where `y`, `no`, `1:30` and `2026-09-30` are not strings) and YAML 1.2 core
 * (where `1e3` is a number). Values that fail this are written in single quotes, keys in double quotes.
 */
import { relative } from 'node:path';
import { Document, isMap, isScalar, isSeq, parse, Scalar, visit, type Node } from 'yaml';
import { resolvePlain } from '../load/yaml-scalars.js';

/** Writes `value` as YAML; `hints` become comment lines at the end of the mapping at `hintsAt`. */
export function toAuthoredYaml(value: unknown, options: { header?: readonly string[]; hints?: readonly string[]; hintsAt?: string } = {}): string {
  const document = new Document(value);
  styleAuthored(document.contents as Node);
  if (options.hints && options.hints.length > 0) {
    const target = options.hintsAt ? document.get(options.hintsAt, true) : document.contents;
    if (isMap(target) || isSeq(target)) target.comment = options.hints.map((line) => ` ${line}`).join('\n');
  }
  const header = (options.header ?? []).map((line) => (line === '' ? '#' : `# ${line}`)).join('\n');
  const body = document.toString({ lineWidth: 0, flowCollectionPadding: false });
  return header ? `${header}\n${body}` : body;
}

/**
 * Styles a new node (and everything below it) as package-sdk writes: short lists of scalars in flow style, a
 * string plain only when every reader takes it for that string, else single quotes (double for a key, a
 * string with a line break, or one holding a single quote). `edit` styles the fragments it adds the same way.
 */
export function styleAuthored(node: Node): void {
  visit(node, {
    Pair(_, pair) {
      if (isScalar(pair.key) && typeof pair.key.value === 'string' && !isPlainSafe(pair.key.value)) pair.key.type = Scalar.QUOTE_DOUBLE;
    },
    Seq(_, seq) {
      if (seq.items.length > 0 && seq.items.length <= 8 && seq.items.every((item) => isScalar(item))) seq.flow = true;
    },
    Scalar(key, scalar) {
      if (key === 'key' || typeof scalar.value !== 'string') return; // keys: see Pair
      if (/[\n\r\t]/.test(scalar.value)) scalar.type = Scalar.QUOTE_DOUBLE;
      else if (isPlainSafe(scalar.value)) scalar.type = Scalar.PLAIN;
      // a CEL string literal ('paid') reads better in double quotes than with its quotes doubled
      else scalar.type = scalar.value.includes("'") && !/["\\]/.test(scalar.value) ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE;
    },
  });
}

/** True when `text` written as a plain scalar reads back as the same string in every reader of package files. */
export function isPlainSafe(text: string): boolean {
  if (text === '' || text !== text.trim() || /[\n\r\t]/.test(text)) return false;
  const core = resolvePlain(text);
  if (!('value' in core) || core.value !== text) return false;
  return readsAsString(text, '1.1') && readsAsString(text, '1.2');
}

function readsAsString(text: string, version: '1.1' | '1.2'): boolean {
  try {
    const read = parse(`k: ${text}\n`, { version, uniqueKeys: true }) as unknown;
    return typeof read === 'object' && read !== null && (read as Record<string, unknown>).k === text && Object.keys(read).length === 1;
  } catch {
    return false;
  }
}

/** The editor modeline of a file in `fileDir` for the schema at `schemaFile` (a relative path, with `/`). */
export function modeline(fileDir: string, schemaFile: string): string {
  return `yaml-language-server: $schema=${relative(fileDir, schemaFile).split('\\').join('/')}`;
}
