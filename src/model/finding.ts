/**
 * A finding is data (ARCHITECTURE.md, principle 2): what is wrong, where, and what would be right.
 * Renderers in src/report/ turn findings into text, JSON, SARIF or GitHub annotations.
 */
import type { Span } from '../json/document.js';

/** An error fails the command; a warning does not; a note says what was not checked, and why. */
export type Severity = 'error' | 'warning' | 'note';

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

/** `{hint}` when there is one, to spread into a finding or report options. */
export function hintOf(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}

export function isError(finding: Finding): boolean {
  return finding.severity === 'error' && !finding.suppressed;
}
