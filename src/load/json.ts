/**
 * JSON files (process data schemas, plans, locks, the core's answers) through the same `SourceDocument`
 * interface as YAML, read by the project's one JSON reader (src/json/parse.ts): positions of every node,
 * integral floats (`1.0`, `1e3`) listed in `floats`, duplicate keys refused.
 *
 * | code         | severity | when                                                                    |
 * |--------------|----------|-------------------------------------------------------------------------|
 * | invalid_json | error    | not JSON (syntax), a duplicate key, a non-finite number, a lone surrogate |
 */
import type { Span } from '../json/document.js';
import type { SourceDocument } from '../json/document.js';
import type { LoadResult } from './load-finding.js';
import { lineStartsOf, loadError, spanOf } from './load-finding.js';
import { JsonSyntaxError, PACKAGE_JSON, parseJson as parseJsonText, plainJson, spanAt, type ParsedJson } from '../json/parse.js';
import { mapScalar } from './scalar-offsets.js';

/** Parses `text` (the contents of `file`) into a document, or into an `invalid_json` finding. */
export function parseJson(text: string, file: string): LoadResult {
  const lineStarts = lineStartsOf(text);
  let parsed: ParsedJson;
  try {
    parsed = parseJsonText(text, PACKAGE_JSON);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { findings: [loadError('invalid_json', file, spanOf(lineStarts, error.start, error.end), error.pointer, error.reason)] };
  }
  const { value, floats } = plainJson(parsed.value);
  return { document: new JsonDocument(file, value, parsed, floats, lineStarts), findings: [] };
}

/** A loaded JSON file: the value, and the places of its values kept to locate them. */
class JsonDocument implements SourceDocument {
  readonly suppressions: ReadonlyMap<number, readonly string[]> = new Map();
  readonly text: string;

  constructor(
    readonly file: string,
    readonly value: unknown,
    private readonly parsed: ParsedJson,
    readonly floats: ReadonlySet<string>,
    private readonly lineStarts: readonly number[],
  ) {
    this.text = parsed.text;
  }

  locate(pointer: string, part: 'key' | 'value' = 'value'): Span {
    const { span, found } = spanAt(this.parsed, pointer);
    if (span.keyStart !== undefined && span.keyEnd !== undefined && (part === 'key' || !found)) return spanOf(this.lineStarts, span.keyStart, span.keyEnd);
    return spanOf(this.lineStarts, span.start, span.end);
  }

  includes(needle: string): boolean {
    return this.text.includes(needle);
  }

  locateInScalar(pointer: string, offset: number): Span {
    const { span, found } = spanAt(this.parsed, pointer);
    if (!found || this.text[span.start] !== '"') return this.locate(pointer);
    const [map] = mapScalar(this.text, span.start, span.end, 'QUOTE_DOUBLE');
    const index = Math.max(0, Math.min(offset, map!.value.length));
    const at = map!.offsets[index]!;
    return spanOf(this.lineStarts, at, index < map!.value.length ? at + 1 : at);
  }
}
