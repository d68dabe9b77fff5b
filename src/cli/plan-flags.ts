import { Flags, type Command } from '@oclif/core';

/** The flags `plan` and `apply` share. */
export const envFlag = {
  env: Flags.file({ summary: 'Variable values, NAME=value per line (default: .env when it exists); the environment wins.' }),
};

/**
 * Ends a command on a refusal: with `--json` as oclif's error object, else as `error <code>: …` and its hint on
 * stderr, unwrapped; exit 1 (2 for usage). Anything else is a bug and keeps its stack trace.
 */
export async function endWithRefusal(command: Command, error: unknown): Promise<never> {
  const { asRefusal } = await import('../plan/refusal.js');
  const refusal = await asRefusal(error);
  if (!refusal) throw error;
  if (command.jsonEnabled()) command.error(refusal.message, { exit: refusal.exitCode, code: refusal.code });
  const [{ renderRefusal }, { paintFor }] = await Promise.all([import('../report/plan.js'), import('../report/paint.js')]);
  command.logToStderr(renderRefusal(refusal, paintFor(process.stderr)));
  return command.exit(refusal.exitCode);
}
