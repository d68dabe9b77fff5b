
/** Where something is written in a file: 1-based line and column, and where it ends when known. */
export interface Span {
  /** 1-based line of the first character. */
  line: number;
  /** 1-based column of the first character. */
  column: number;
  endLine?: number;
  endColumn?: number;
}

/**
 * A parsed file: its JSON value plus enough of the syntax tree to point at any node.
 * YAML and JSON files load through this one interface.
 */
export interface SourceDocument {
  /** Path as given (relative to the working directory when possible). */
  file: string;
  /** The file's text, for code frames. */
  text: string;
  /** The JSON value (plain objects, arrays, strings, numbers, booleans, null). */
  value: unknown;
  /**
   * JSON Pointers of numbers written as floats whose value is integral (`1.0`): JavaScript cannot tell
   * them from integers, but canonical JSON and the hashes built on it can.
   */
  floats: ReadonlySet<string>;
  /**
   * Where the node at `pointer` is written. `part: 'key'` points at the mapping key instead of the value
   * (an unknown field is reported at its key). A pointer that goes past an existing node resolves to the
   * deepest node that exists, so a missing required field is reported at its parent.
   */
  locate(pointer: string, part?: 'key' | 'value'): Span;
  /**
   * Where the `offset`-th character of the string value at `pointer` is written in the file, accounting for
   * quoting, escapes and block scalars — for findings inside an expression.
   */
  locateInScalar(pointer: string, offset: number): Span;
  /**
   * Whether the text holds `needle`. A document of the check's index answers for the marks the check asks of
   * every object (src/model/text-marks.ts) without reading its text.
   */
  includes(needle: string): boolean;
  /** Comments `# package-sdk-disable-next-line <code>…` by the 1-based line they apply to. */
  suppressions: ReadonlyMap<number, readonly string[]>;
}
