/**
 * The `plan` command's job, shared by the oclif command (src/commands/plan.ts) and the lean entry that
 * bin/run.js takes for a plain `plan` against a remote core: a CD pipeline plans on every change, and loading
 * the command framework and compiling a hundred modules would cost more than planning. The lean entry always
 * plans, so what it runs is imported with it: bin/run.js loads the job's bundle, with the modules of node's it
 * requires (http among them), before it sets the process's V8 flags, under which node would compile them anew.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { plan, type PlanResult } from '../plan/plan.js';
import { renderPlan, totalChanges } from '../report/plan.js';
import { paintFor } from '../report/paint.js';
import { renderRefusal } from '../report/refusal.js';
import { useCheckCache } from './check.js';
import { refusalOf } from './refusal.js';

export interface PlanRequest {
  install: string;
  server: string;
  out: string;
  env?: string;
  workspace?: string;
  replayLimit: number;
  overwriteConsole: boolean;
  detailedExitcode: boolean;
  /** Reuse the check's index (`--no-cache`: check everything afresh). */
  cache: boolean;
}

/** What `plan` prints after the plan, and its exit status: 2 for a plan with changes under --detailed-exitcode. */
export function planOutput(result: PlanResult, request: Pick<PlanRequest, 'out' | 'server' | 'env' | 'detailedExitcode'>, bin: string): { text: string; exitCode: number } {
  const changes = totalChanges(result.document);
  const lines = [renderPlan(result.document, paintFor(process.stdout), result.warnings), `\nplan saved: ${request.out} (planHash ${result.document.planHash})`];
  // apply rebuilds variablesHash from the same values: it needs the same --env.
  if (changes > 0) lines.push(`apply it: ${bin} apply --plan ${request.out} --server ${request.server}${request.env ? ` --env ${request.env}` : ''}`);
  return { text: lines.join('\n'), exitCode: request.detailedExitcode && changes > 0 ? 2 : 0 };
}

/** The lean `plan`: undefined when the command line needs the full command (help, --json, --html, the embedded core, a usage problem). */
export async function runPlanFast(argv: readonly string[], _version?: string): Promise<number | undefined> {
  const request = parsePlanArgs(argv);
  if (!request) return undefined;
  if (request.cache) await useCheckCache();
  try {
    const result = await plan({
      install: request.install, server: request.server, out: request.out, replayLimit: request.replayLimit, overwriteConsole: request.overwriteConsole,
      ...(request.env ? { env: request.env } : {}), ...(request.workspace ? { workspaceId: request.workspace } : {}),
    });
    const output = planOutput(result, request, 'package-sdk');
    process.stdout.write(`${output.text}\n`);
    return output.exitCode;
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    process.stderr.write(`${renderRefusal(refusal, paintFor(process.stderr))}\n`);
    return request.detailedExitcode ? 1 : refusal.exitCode;
  }
}

function parsePlanArgs(argv: readonly string[]): PlanRequest | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        install: { type: 'string' }, server: { type: 'string' }, out: { type: 'string' }, env: { type: 'string' }, workspace: { type: 'string' },
        'replay-limit': { type: 'string' }, 'overwrite-console': { type: 'boolean' }, 'detailed-exitcode': { type: 'boolean' },
        cache: { type: 'boolean' }, 'no-cache': { type: 'boolean' },
      },
    });
    const replayLimit = values['replay-limit'] === undefined ? 50 : Number(values['replay-limit']);
    const { install, server, out } = values;
    if (positionals.length > 0 || !install || !server || !out || server === 'local' || !existsSync(install)) return undefined;
    if (values.env !== undefined && !existsSync(values.env)) return undefined;
    if (!Number.isInteger(replayLimit) || replayLimit < 0 || replayLimit > 200 || !/^\d+$/.test(values['replay-limit'] ?? '50')) return undefined;
    return {
      install, server, out, replayLimit,
      ...(values.env !== undefined ? { env: values.env } : {}), ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
      overwriteConsole: values['overwrite-console'] ?? false, detailedExitcode: values['detailed-exitcode'] ?? false,
      cache: !values['no-cache'],
    };
  } catch {
    return undefined;
  }
}
