/**
 * What a command prints under `--json` when it refuses or fails (docs/json-output.md, schema/v1/cli/error.json):
 * `{"error": {code, message, exit, details?}}` — the core's error envelope plus the exit status — whatever
 * raised it: a refusal of the library, a usage problem found by oclif's parser, or a bug.
 */
import { Command } from '@oclif/core';
import { isRecord } from '../json/guards.js';
import { paintFor } from '../report/paint.js';
import { renderRefusal } from '../report/refusal.js';
import { refusalOf } from './refusal.js';

export interface ErrorJson {
  error: {
    /** Stable snake_case code: the refusal's own, `usage` for a command line that does not parse, `internal_error` for a bug. */
    code: string;
    message: string;
    /** The exit status of the command: 1 a refusal or a failure, 2 a usage or I/O problem. */
    exit: number;
    /** What to do about it, when the refusal says. */
    hint?: string;
    /** What the refusal is about, when it says more than its message (the control plane's `details`). */
    details?: Record<string, unknown>;
  };
}

/** The fields an error may carry: a refusal's code and details, oclif's exit status, a library's exitCode. */
interface Raised {
  message?: unknown;
  code?: unknown;
  hint?: unknown;
  details?: unknown;
  exitCode?: unknown;
  oclif?: { exit?: unknown };
}

/** The exit status an error ends a command with; `parsed` is false when the command line did not parse. */
export function exitStatusOf(error: unknown, parsed: boolean): number {
  const raised = (error ?? {}) as Raised;
  const status = raised.oclif?.exit ?? raised.exitCode;
  if (typeof status === 'number') return status;
  return parsed ? 1 : 2;
}

export function errorJson(error: unknown, parsed: boolean): ErrorJson {
  const raised = (error ?? {}) as Raised;
  const code = typeof raised.code === 'string' ? raised.code : parsed ? 'internal_error' : 'usage';
  const text = typeof raised.message === 'string' ? raised.message : String(error);
  const message = parsed ? text : usageMessage(text);
  const hint = typeof raised.hint === 'string' ? { hint: raised.hint } : {};
  const details = isRecord(raised.details) && Object.keys(raised.details).length > 0 ? { details: raised.details } : {};
  return { error: { code, message, exit: exitStatusOf(error, parsed), ...hint, ...details } };
}

/**
 * oclif's words for a command line that does not parse, on one line: "Parsing --plan / No file found at x" →
 * "Parsing --plan: No file found at x", without its "See more help" (the hint says where help is).
 */
export function usageMessage(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^See more help with/.test(line))
    .join(': ')
    .replace(/\s*:\s*:/g, ':');
}

/**
 * The base of every command, and the one way a command ends on a refusal: `error <code>: <message>` and the
 * hint on stderr, unwrapped, or under `--json` `errorJson` — with the same exit status (1, or 2 for a usage or
 * I/O problem). oclif would print its internals (a parse error carries the whole configuration) and exit 1.
 * A command line that does not parse exits 2 in both modes, as every command's help says; a bug keeps its
 * stack trace.
 */
export abstract class JsonCommand extends Command {
  protected override async catch(raisedError: Parameters<Command['catch']>[0]): Promise<unknown> {
    const refusal = refusalOf(raisedError);
    const error = refusal ?? raisedError;
    if (!this.jsonEnabled()) {
      const usage = this.parsed ? undefined : { code: 'usage', message: usageMessage((raisedError as Error).message ?? String(raisedError)), hint: `see ${this.config.bin} ${this.id?.replaceAll(':', ' ') ?? ''} --help` };
      const shown = refusal ?? usage;
      if (shown !== undefined) {
        this.logToStderr(renderRefusal(shown, paintFor(process.stderr)));
        process.exitCode = refusal?.exitCode ?? 2;
        return undefined;
      }
    }
    const status = exitStatusOf(error, this.parsed);
    const raised = error as Raised;
    raised.oclif = { ...raised.oclif, exit: status }; // read by oclif's handler in text mode
    if (this.jsonEnabled()) process.exitCode ??= status;
    return super.catch(error as Parameters<Command['catch']>[0]);
  }

  protected override toErrorJson(error: unknown): ErrorJson {
    return errorJson(error, this.parsed);
  }
}
