/**
 * A refusal or an input problem of a bundle or key command, with the code kernos reports for it
 * (`key_invalid`, `usage`, `bundle_signature_invalid`, …). oclif prints `message` in text mode and
 * the enumerable fields in `--json` mode, and exits with `exitCode` (1 refusal, 2 usage or I/O).
 */
export class BundleFailure extends Error {
  readonly oclif: { exit: number };

  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'Error'; // printed as "Error: <message>"
    this.oclif = { exit: exitCode };
  }
}
