/**
 * Every error a command may end on that is a refusal — the library's `Refusal`, or an error of the core's client
 * (a bad `--server`, a missing token, no answer, a request the core refused) — as a `Refusal`, so that it
 * ends the command one way (json-command.ts). Anything else is a bug and keeps its stack trace.
 */
import { CoreHttpError, CoreTransportError, ServerAddressError } from '../client/client.js';
import { MissingTokenError } from '../client/connect.js';
import { Refusal } from '../fs/refusal.js';

/** The refusal an error is; undefined for an internal bug. */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof Refusal) return error;
  if (error instanceof ServerAddressError || error instanceof MissingTokenError) return new Refusal(error.code, error.message, { exitCode: 2 });
  if (error instanceof CoreTransportError) return new Refusal(error.code, error.message, { exitCode: 2, hint: 'check --server and that the core is running' });
  if (error instanceof CoreHttpError) return new Refusal('core_rejected', error.message);
  return undefined;
}
