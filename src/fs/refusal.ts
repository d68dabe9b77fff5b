/**
 * Why a command stops without doing what it was asked, and has written nothing it should not have: a stable
 * code, a message that says what happened, and the way out. Every refusal of the library — plan, apply, lock,
 * bundle, keys, authoring, the cache — is one of these, and ends a command one way (src/cli/json-command.ts):
 * `error <code>: <message>` and the hint on stderr, or the error object under `--json`; exit 1, or 2 for a
 * usage or I/O problem.
 */
export interface RefusalOptions {
  /** What to do about it. */
  hint?: string;
  /** Process exit status: 1 for a refusal, 2 for a usage or I/O problem. */
  exitCode?: 1 | 2;
  /** Several problems of one kind (missing variables, failed checks), one per line. */
  problems?: readonly string[];
  /** What the refusal is about, for `--json` (a path, a line, the control plane's details). */
  details?: Record<string, unknown>;
}

export class Refusal extends Error {
  readonly hint: string | undefined;
  readonly exitCode: 1 | 2;
  readonly problems: readonly string[];
  readonly details: Record<string, unknown>;

  constructor(
    readonly code: string,
    message: string,
    options: RefusalOptions = {},
  ) {
    super(message);
    this.name = 'Refusal';
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
    this.problems = options.problems ?? [];
    this.details = options.details ?? {};
  }
}
