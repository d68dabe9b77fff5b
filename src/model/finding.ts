/**
 * A finding is data (ARCHITECTURE.md, principle 2): what is wrong, where, and what would be right.
 * Renderers in src/report/ turn findings into text, JSON, SARIF or GitHub annotations.
 */
export type Severity = 'error' | 'warning';

export interface Span {
  /** 1-based line of the first character. */
  line: number;
  /** 1-based column of the first character. */
  column: number;
  endLine?: number;
  endColumn?: number;
}

export interface Finding extends Span {
  /** Stable snake_case code (the reference implementation's code where it has one). */
  code: string;
  severity: Severity;
  /** One sentence: what is wrong. Never repeats the file or the line. */
  message: string;
  /** File as given to the command (relative to the working directory when possible). */
  file: string;
  /** JSON Pointer into the document ('' for the whole document). */
  path: string;
  /** What to do about it ("did you mean 'displayName'?"). */
  hint?: string;
  /** Set when a `# package-sdk-disable-next-line <code>` comment silenced it. */
  suppressed?: boolean;
}

export function isError(finding: Finding): boolean {
  return finding.severity === 'error' && !finding.suppressed;
}
