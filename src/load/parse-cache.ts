/**
 * A cache of parsed files for the `check` command, keyed by the file's bytes: a pre-commit hook or an editor
 * checks mostly unchanged files again and again, and parsing YAML is most of the work. An entry keeps the
 * value, the place of every node and the schemas the document is known to satisfy; reading it is a JSON
 * parse. The few findings that point inside a string (`locateInScalar`) parse the file for real.
 *
 * Entries are named by SHA-256 of the bytes and of the build (package version and the loader and validator
 * modules' stamps), so a new package-sdk never trusts an old verdict.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Span } from '../json/document.js';
import type { SourceDocument } from '../json/document.js';
import type { LoadResult } from './load-finding.js';
import { childPointer, pointerSegments } from '../json/pointer.js';

/** Documents with more nodes than this (alias bombs, generated data) are not worth a table. */
const MAX_NODES = 20_000;

interface Entry {
  value: unknown;
  floats: string[];
  suppressions: [number, string[]][];
  /** pointer → [key span, value span], each `[line, column, endLine, endColumn]`. */
  nodes: Record<string, [number[], number[]]>;
  /** Schemas the document passed. */
  clean: string[];
}

interface Known {
  name: string;
  entry: Entry;
  dirty: boolean;
}

export class ParseCache {
  private readonly known = new WeakMap<SourceDocument, Known>();
  private readonly salt: string;

  constructor(private readonly dir: string) {
    this.salt = buildStamp();
  }

  /** The document of `bytes` from the cache, or from `parse` (remembered when it loads without findings). */
  load(bytes: Uint8Array, file: string, parse: () => LoadResult): LoadResult {
    const name = createHash('sha256').update(this.salt).update(bytes).digest('hex');
    const entry = this.read(name);
    if (entry) {
      const document = new CachedDocument(file, Buffer.from(bytes).toString('utf8'), entry, parse);
      this.known.set(document, { name, entry, dirty: false });
      return { document, findings: [] };
    }
    const result = parse();
    if (result.document && result.findings.length === 0) {
      const table = nodeTable(result.document);
      if (table) this.known.set(result.document, { name, entry: { ...table, clean: [] }, dirty: true });
    }
    return result;
  }

  /** Whether `document` is known to satisfy `schema` (validated clean by this build before). */
  isClean(document: SourceDocument, schema: string): boolean {
    return this.known.get(document)?.entry.clean.includes(schema) ?? false;
  }

  markClean(document: SourceDocument, schema: string): void {
    const known = this.known.get(document);
    if (!known || known.entry.clean.includes(schema)) return;
    known.entry.clean.push(schema);
    known.dirty = true;
  }

  /** Writes new and changed entries (each atomically); a cache that cannot be written is only slower. */
  flush(documents: Iterable<SourceDocument>): void {
    try {
      mkdirSync(this.dir, { recursive: true });
      for (const document of documents) {
        const known = this.known.get(document);
        if (!known?.dirty) continue;
        const target = join(this.dir, `${known.name}.json`);
        const temporary = `${target}.${process.pid}.tmp`;
        writeFileSync(temporary, JSON.stringify(known.entry));
        renameSync(temporary, target);
        known.dirty = false;
      }
    } catch {
      // A read-only or full cache directory costs speed, never a result.
    }
  }

  private read(name: string): Entry | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as Entry;
    } catch {
      return undefined;
    }
  }
}

class CachedDocument implements SourceDocument {
  readonly value: unknown;
  readonly floats: ReadonlySet<string>;
  readonly suppressions: ReadonlyMap<number, readonly string[]>;
  private parsed: SourceDocument | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
    private readonly entry: Entry,
    private readonly parse: () => LoadResult,
  ) {
    this.value = entry.value;
    this.floats = new Set(entry.floats);
    this.suppressions = new Map(entry.suppressions);
  }

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const exact = this.entry.nodes[pointer];
    if (exact) return toSpan(part === 'key' ? exact[0] : exact[1]);
    // Past the existing nodes: the key of the deepest node on the way, as the parser's documents do.
    const segments = pointerSegments(pointer);
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const ancestor = this.entry.nodes[segments.slice(0, depth).reduce(childPointer, '')];
      if (ancestor) return toSpan(ancestor[0]);
    }
    return { line: 1, column: 1 };
  }

  locateInScalar(pointer: string, offset: number): Span {
    this.parsed ??= this.parse().document;
    return this.parsed ? this.parsed.locateInScalar(pointer, offset) : this.locate(pointer);
  }
}

/** The place of every node of a freshly parsed document, or undefined when it has too many. */
function nodeTable(document: SourceDocument): Omit<Entry, 'clean'> | undefined {
  const nodes: Entry['nodes'] = {};
  let count = 0;
  const visit = (value: unknown, pointer: string): boolean => {
    if (++count > MAX_NODES) return false;
    nodes[pointer] = [fromSpan(document.locate(pointer, 'key')), fromSpan(document.locate(pointer, 'value'))];
    if (Array.isArray(value)) return value.every((item, index) => visit(item, childPointer(pointer, index)));
    if (value !== null && typeof value === 'object') {
      return Object.entries(value).every(([key, item]) => visit(item, childPointer(pointer, key)));
    }
    return true;
  };
  if (!visit(document.value, '')) return undefined;
  return { value: document.value, floats: [...document.floats], suppressions: [...document.suppressions].map(([l, c]) => [l, [...c]]), nodes };
}

function fromSpan(span: Span): number[] {
  return [span.line, span.column, span.endLine ?? span.line, span.endColumn ?? span.column];
}

function toSpan([line, column, endLine, endColumn]: number[]): Span {
  return { line: line!, column: column!, endLine: endLine!, endColumn: endColumn! };
}

/**
 * What makes a verdict of this build: its version, the module that holds this code (or the bundle it is part
 * of), the YAML loader, the schema validators and the schemas themselves (edited without a build, they are
 * compiled at run time).
 */
function buildStamp(): string {
  const root = new URL('../../', import.meta.url); // dist/load/ and the bundle in dist/cli/ are as deep
  const require = createRequire(import.meta.url);
  const parts = [String((require(fileURLToPath(new URL('package.json', root))) as { version: string }).version)];
  const schemas = ['object', 'view', 'test', 'lock', 'plan', 'knowledge-pack', 'knowledge-template'].map((name) => new URL(`schema/v1/${name}.schema.json`, root));
  for (const file of [import.meta.url, new URL('dist/load/yaml.js', root), new URL('dist/schema/validators.generated.cjs', root), ...schemas]) {
    try {
      const info = statSync(new URL(file));
      parts.push(`${info.size}:${info.mtimeMs}`);
    } catch {
      parts.push('absent');
    }
  }
  return parts.join('|');
}

let active: ParseCache | undefined;

/**
 * The cache every file load of this process goes through (set once by the `check` command; the library
 * functions parse afresh unless a cache is set).
 */
export function useParseCache(cache: ParseCache | undefined): void {
  active = cache;
}

export function activeParseCache(): ParseCache | undefined {
  return active;
}
