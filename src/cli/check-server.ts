/**
 * `check --server URL|local`: the offline check, and the core's own verdict on each package —
 * `POST /api/v1/packages:test?checkOnly=true` with the files plan sends (the package's YAML and JSON, no
 * knowledge pack, `${VAR}` replaced where a value is known) — in one report. Every finding says where it
 * comes from: `source: "check"` (package-sdk), `"core"` (the core only) or `"both"`. A core that cannot be
 * reached is an error of the report, never a check that passes quietly.
 *
 * Kept apart from the lean check path (check.ts), which must not load the client or the embedded core.
 */
import { join } from 'node:path';
import type { CheckReport } from '../check/index.js';
import { CoreTransportError, type CoreClient } from '../client/client.js';
import { withCore } from '../client/connect.js';
import { displayPath } from '../load/package.js';
import type { Finding } from '../model/finding.js';
import type { Package } from '../model/package.js';
import { packageFiles } from '../plan/core-section.js';
import { readEnvironment } from '../plan/variables.js';
import { renderedOutcome, type CheckOutcome, type CheckRequest } from './check.js';
import { localCore } from './local-core.js';

export type FindingSource = 'check' | 'core' | 'both';

/** A finding of `check --server`: the finding, and who reported it. */
export type SourcedFinding = Finding & { source: FindingSource };

/** What the core said of each package. */
export interface CoreVerdict {
  server: string;
  /** `checked` when every package got an answer, `unreachable` when the core could not be asked. */
  status: 'checked' | 'unreachable';
  packages: { key: string; status: string }[];
}

/** The report of `check --server`: the check's report, its findings marked, and the core's verdict. */
export interface ServerCheckReport extends Omit<CheckReport, 'errors' | 'warnings' | 'suppressed'> {
  errors: SourcedFinding[];
  warnings: SourcedFinding[];
  suppressed: SourcedFinding[];
  core: CoreVerdict;
}

export interface ServerCheckRequest extends CheckRequest {
  server: string;
  env?: string;
  workspace?: string;
  cwd?: string;
}

/** A problem as the core reports it (`ProcessProblemOut`). */
interface CoreProblem {
  code: string;
  severity?: string;
  message: string;
  path?: string | null;
  file?: string | null;
  line?: number | null;
  hint?: string | null;
}

export async function runServerCheck(request: ServerCheckRequest, version: string): Promise<CheckOutcome> {
  const cwd = request.cwd ?? process.cwd();
  const { check } = await import('../check/index.js');
  const checked = await check({
    cwd, ...(request.install ? { install: request.install } : {}), ...(request.packages ? { packages: request.packages } : {}), paths: request.paths,
  });
  const env = await readEnvironment(request.env);
  const answers: { pkg: Package; problems: CoreProblem[]; status: string }[] = [];
  const verdict: CoreVerdict = { server: request.server, status: 'checked', packages: [] };
  const unreachable: Finding[] = [];
  try {
    await withCore(request.server, { env, localCore }, async ({ client, server }) => {
      verdict.server = server;
      for (const pkg of checked.workspace.packages) {
        const answer = await askCore(client, pkg, env, request.workspace);
        answers.push({ pkg, ...answer });
        verdict.packages.push({ key: pkg.key, status: answer.status });
      }
    });
  } catch (error) {
    if (!(error instanceof CoreTransportError)) throw error;
    verdict.status = 'unreachable';
    unreachable.push({ code: 'core_unreachable', severity: 'error', message: `the core at ${request.server} could not be asked for its verdict: ${error.message}`, file: request.server, path: '', line: 1, column: 1, hint: 'check --server and that the core is running, or check without --server' });
  }
  const core = answers.flatMap(({ pkg, problems }) => problems.map((problem) => findingOf(problem, pkg, cwd)));
  const report = merged(checked.report, [...core, ...unreachable], verdict);
  const outcome = await renderedOutcome(request, { workspace: checked.workspace, report: report as unknown as CheckReport }, version, `\n${coreLine(verdict)}`);
  return { ...outcome, result: report as unknown as CheckReport };
}

/** The core's check of one package. */
async function askCore(client: CoreClient, pkg: Package, env: Readonly<Record<string, string>>, workspaceId: string | undefined): Promise<{ problems: CoreProblem[]; status: string }> {
  const files = await packageFiles(pkg, knownValues(pkg, env));
  const answer = await client.send<{ status?: string; problems?: CoreProblem[] }>('POST', '/api/v1/packages:test', {
    query: [['checkOnly', true]],
    body: { package: { files }, ...(workspaceId !== undefined ? { workspaceId } : {}) },
  });
  return { problems: answer.problems ?? [], status: answer.status ?? 'unknown' };
}

/**
 * The values `${NAME}` takes: the manifest's defaults under the --env file and the environment. A name with no
 * value stays as written — the core leaves it a literal and skips what still holds one, as it does for a
 * package sent unsubstituted.
 */
function knownValues(pkg: Package, env: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const spec = (pkg.manifest.value as { spec?: { variables?: Record<string, { default?: unknown }> } } | null)?.spec;
  const values: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(spec?.variables ?? {})) {
    if (declaration && typeof declaration.default === 'string') values[name] = declaration.default;
  }
  Object.assign(values, env);
  return new Proxy(values, { get: (target, name) => (typeof name === 'string' ? (target[name] ?? `\${${name}}`) : undefined) });
}

function findingOf(problem: CoreProblem, pkg: Package, cwd: string): Finding {
  return {
    code: problem.code,
    severity: problem.severity === 'warning' ? 'warning' : 'error',
    message: problem.message,
    file: displayPath(cwd, join(pkg.dir, problem.file ?? 'package.yaml')),
    path: problem.path ?? '',
    line: problem.line ?? 1,
    column: 1,
    ...(problem.hint ? { hint: problem.hint } : {}),
  };
}

/** The check's findings and the core's in one report; a finding both report (same code, file and place) is listed once. */
function merged(report: CheckReport, core: readonly Finding[], verdict: CoreVerdict): ServerCheckReport {
  const key = (finding: Finding): string => JSON.stringify([finding.code, finding.file, finding.path]);
  const fromCore = new Map(core.map((finding) => [key(finding), finding]));
  const mark = (finding: Finding): SourcedFinding => {
    const both = fromCore.delete(key(finding));
    return { ...finding, source: both ? 'both' : 'check' };
  };
  const errors = report.errors.map(mark);
  const warnings = report.warnings.map(mark);
  const suppressed = report.suppressed.map(mark);
  for (const finding of fromCore.values()) (finding.severity === 'error' ? errors : warnings).push({ ...finding, source: 'core' });
  const byPlace = (a: Finding, b: Finding): number => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code);
  errors.sort(byPlace);
  warnings.sort(byPlace);
  return { ...report, ok: errors.length === 0, errors, warnings, suppressed, core: verdict };
}

function coreLine(verdict: CoreVerdict): string {
  if (verdict.status === 'unreachable') return `core unreachable: ${verdict.server}`;
  return `checked by the core at ${verdict.server}: ${verdict.packages.map((pkg) => `${pkg.key} ${pkg.status}`).join(', ') || 'no package'}`;
}

