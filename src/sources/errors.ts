/**
 * A git source cannot be used: refused content, a missing tag, an unreachable remote. Carries the stable
 * finding code; the code that knows where the source is written turns it into a finding.
 */
export class SourceError extends Error {
  constructor(readonly code: string, message: string, readonly hint?: string) {
    super(message);
  }
}
