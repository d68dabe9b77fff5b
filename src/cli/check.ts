/**
 * The `check` command's job, shared by the oclif command (src/commands/check.ts) and the lean entry that
 * bin/run.js takes for a plain `check` invocation: a pre-commit hook or an editor runs `check` on every
 * commit or keystroke, and loading the full command framework would cost more than checking a package.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CodeInfo } from '../check/catalog.js';
import type { CheckReport, CheckResult } from '../check/index.js';
import type { ObjectRuns, RuleMemo } from '../check/rule-memo.js';
import type { SourceDocument } from '../json/document.js';
import type { IndexLook, ParseCache } from '../load/parse-cache.js';
import { hasGitSources, type Installation } from '../model/installation.js';
import type { Finding } from '../model/finding.js';
import type { Workspace } from '../model/workspace.js';
import type { Terminal } from '../report/paint.js';
import { RESIDENT_FROM_OBJECTS, residentUse } from './resident-use.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** The flags of `check`, as data: the oclif command declares them from this, the lean entry parses them. */
export const CHECK_FLAGS = {
  install: { summary: 'Installation file (kind: Installation).', helpValue: 'FILE' },
  package: { summary: 'Package directory, or a package key found in ./packages. Repeatable.', helpValue: 'DIR|KEY' },
  format: { summary: 'Output format.', default: 'text' as Format },
  listRules: { summary: 'List every code (findings of check and lock, refusals of plan and apply) with its severity and meaning, and exit.' },
  cache: { summary: 'Reuse what earlier runs learnt of unchanged files (in $PACKAGE_SDK_CACHE/check); --no-cache parses everything afresh.' },
  schemaOnly: { summary: 'Report only what loading and the format schema find (the rules run, their findings are left out).' },
  server: { summary: "Also ask a core for its verdict (POST /packages:test?checkOnly=true), or \"local\" for the embedded one; findings of both in one report, each marked with its source.", helpValue: 'URL|local' },
  env: { summary: 'With --server: variable values, NAME=value per line (default: .env when it exists); the environment wins.', helpValue: 'FILE' },
  workspace: { summary: "With --server: the workspace whose roles, calendars and instances the core's check reads.", helpValue: 'ID' },
  resident: { summary: "Ask this working directory's resident checker, which keeps the index warm and learns what changed from the file system's events; start it in the background when none runs (`package-sdk resident stop` ends it). The same report. Without the flag, a check asks one that runs, and starts one after checking a workspace of 1,000 objects or more (not in CI); --no-resident (or PACKAGE_SDK_RESIDENT=off) neither asks nor starts one." },
};

export interface CheckRequest {
  /** Directory the targets are relative to (default: the process's cwd). */
  cwd?: string;
  install?: string;
  packages?: string[];
  paths: string[];
  format: Format;
  json: boolean;
  listRules: boolean;
  /** Reuse parsed files and schema verdicts of unchanged files across runs. */
  cache: boolean;
  /** Only the findings of loading and the schema stage. */
  schemaOnly?: boolean;
  /** The terminal the report is printed on, when not this process's standard output (a resident checker's client). */
  terminal?: Terminal;
}

export interface CheckOutcome {
  /** What `--json` prints. */
  result: CheckReport | { codes: CodeInfo[] };
  /** Human output (or the chosen format), when not `--json`. */
  output?: string;
  exitCode: number;
  /** When the rules ran with the index: how many runs of object rules over objects were taken from the last check. */
  objectRuns?: ObjectRuns;
}

/**
 * `earlier`: the index was just asked for a report that still stands, had none, and this is what it saw then
 * (bin/run.js): it is not asked again, and its stats are taken as this run's.
 */
export async function runCheckRequest(asked: CheckRequest, version: string, earlier?: IndexLook): Promise<CheckOutcome> {
  if (asked.listRules) return listRules(asked.json);
  const { request, staged, index, key, reused } = await storedReport(asked, earlier);
  if (reused) return renderedOutcome(request, { report: await filtered(request, reused, staged) }, version);
  const { check } = await import('../check/index.js');
  const lastRun = index && key !== undefined ? index.earlierRun(key) : undefined;
  const checked = await check({
    ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
    ...(request.install ? { install: request.install } : {}),
    ...(request.packages ? { packages: request.packages } : {}),
    paths: request.paths,
    // With the index, the object rules' runs are kept for the next check, and the last check's taken where they stand.
    ...(index ? { memory: { previous: lastRun?.memo as RuleMemo | undefined, changedSince: lastRun?.changedSince ?? (() => true) } } : {}),
  });
  if (index && key !== undefined) await storeReport(index, key, request, checked);
  const outcome = await renderedOutcome(request, { workspace: checked.workspace, report: await filtered(request, checked.report, staged) }, version);
  return checked.objectRuns ? { ...outcome, objectRuns: checked.objectRuns } : outcome;
}

/**
 * The targets of `asked` (staged files with their packages), the workspace index when it is used, and the
 * report it holds for them when that report still stands (unless `earlier` says the index had none a moment
 * ago: comparing the inputs costs a stat of each, and a parse of each changed one).
 */
export async function storedReport(asked: CheckRequest, earlier?: IndexLook): Promise<StoredReport> {
  const { request, staged } = withStagedPackages(asked);
  const index = request.cache ? await useCheckCache(request.cwd, earlier) : await withoutIndex();
  if (index === undefined) return { request, staged, index, key: undefined, reused: undefined };
  const key = reportKey(request);
  // The small bundle that hands over what it saw asked already (a resident checker hands over stats alone).
  if (earlier?.result !== undefined) return { request, staged, index, key, reused: undefined };
  const { parseSource } = await import('../load/source.js');
  return { request, staged, index, key, reused: index.reusableReport(key, parseSource) as CheckReport | undefined };
}

interface StoredReport {
  request: CheckRequest;
  staged: ReadonlySet<string> | undefined;
  index: ParseCache | undefined;
  key: string | undefined;
  reused: CheckReport | undefined;
}

/**
 * Files given inside a package (`check FILE…`, as a pre-commit hook passes the staged files) are checked with
 * their package: it is loaded (from the index when unchanged) so that their references are checked against
 * the package graph, and the report keeps the findings of the files given (`staged`, absolute paths).
 */
function withStagedPackages(request: CheckRequest): { request: CheckRequest; staged: ReadonlySet<string> | undefined } {
  const cwd = resolve(request.cwd ?? '.');
  const staged = new Set<string>();
  const packages = new Set<string>();
  const paths: string[] = [];
  for (const path of request.paths) {
    const absolute = resolve(cwd, path);
    const root = /\.ya?ml$/.test(absolute) && isFilePath(absolute) ? enclosingPackage(absolute) : undefined;
    if (root === undefined) {
      paths.push(path);
      continue;
    }
    staged.add(absolute);
    packages.add(root);
  }
  if (staged.size === 0) return { request, staged: undefined };
  return { request: { ...request, packages: [...(request.packages ?? []), ...packages], paths }, staged };
}

/** The nearest folder above `file` that holds a package.yaml, if any. */
function enclosingPackage(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (isFilePath(join(dir, 'package.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isFilePath(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** What names a report in the workspace index: the working directory and the targets. */
export function reportKey(request: CheckRequest): string {
  return JSON.stringify([resolve(request.cwd ?? '.'), request.install ?? null, request.packages ?? [], request.paths]);
}

/**
 * Keeps the report for the next run with what it depends on: the files loaded (the installation file among
 * them), every file and folder of the packages, and where targets and requires are looked for (a package
 * added there changes what a key resolves to). A check of an installation with git sources is not kept: what
 * a source resolves to also depends on its remote (a moved tag, an unreachable host), which no stat of the
 * workspace shows.
 */
async function storeReport(index: ParseCache, key: string, request: CheckRequest, { workspace, report, memo, memoAsBefore }: CheckResult): Promise<void> {
  const installation = workspace.installation;
  if (installation !== undefined && hasGitSources(installation)) return;
  const cwd = resolve(request.cwd ?? '.');
  const trees = workspace.packages.map((pkg) => pkg.dir);
  const targets = [...(request.install !== undefined ? [request.install] : []), ...(request.packages ?? []), ...request.paths].map((target) => resolve(cwd, target));
  const lookedIn = request.install !== undefined
    ? await installationInputs(installation, workspace.packages)
    : [cwd, join(cwd, 'packages'), ...trees.map((dir) => dirname(dir))];
  index.storeReport(key, report, trees, [...new Set([...targets, ...lookedIn])], memo, memoAsBefore);
}

/** Where an installation's packages were looked for (none when the installation file could not be used). */
async function installationInputs(installation: Installation | undefined, packages: Workspace['packages']): Promise<string[]> {
  if (installation === undefined) return [];
  const { installationProbes } = await import('../load/installation.js');
  return installationProbes(installation, packages);
}

/** The report as asked: the findings of the staged files only (when files were given), of stage 1 only (`--schema-only`). */
export async function filtered(request: CheckRequest, report: CheckReport, staged: ReadonlySet<string> | undefined): Promise<CheckReport> {
  const cwd = resolve(request.cwd ?? '.');
  const kept = staged === undefined ? report : keptFindings(report, (finding) => staged.has(resolve(cwd, finding.file)));
  return request.schemaOnly ? schemaOnly(kept) : kept;
}

/** `report` with only the findings that `keep` accepts (and `ok` as they say). */
function keptFindings(report: CheckReport, keep: (finding: Finding) => boolean): CheckReport {
  const errors = report.errors.filter(keep);
  return { ...report, ok: errors.length === 0, errors, warnings: report.warnings.filter(keep), notes: report.notes.filter(keep), suppressed: report.suppressed.filter(keep) };
}

/** The outcome of a finished check: the report under --json, else its rendering in the chosen format. */
export async function renderedOutcome(
  request: CheckRequest,
  { workspace, report }: { workspace?: Workspace; report: CheckReport },
  version: string,
  summary = '',
): Promise<CheckOutcome> {
  const exitCode = exitStatus(report);
  if (request.json) return { result: report, exitCode };
  const documents = workspace?.documents() ?? new Map<string, SourceDocument>();
  const cwd = resolve(request.cwd ?? '.'); // findings name files relative to the request's directory
  const output = await render(request.format, report, version, (file) => documents.get(file)?.text ?? readText(resolve(cwd, file)), request.terminal);
  return { result: report, output: `${output}${summary}`, exitCode };
}

/**
 * `--schema-only`, for parity with the reference, whose check without the core's validators reports only the
 * format schema: the findings of loading, git sources and the schema stage.
 */
async function schemaOnly(report: CheckReport): Promise<CheckReport> {
  const { codeCatalog } = await import('../check/catalog.js');
  const stage1 = new Set(codeCatalog().filter((info) => info.source.split(', ').some((source) => ['load', 'lock', 'schema'].includes(source))).map((info) => info.code));
  return { ...keptFindings(report, (finding) => stage1.has(finding.code)), notes: report.notes };
}

/**
 * The lean entry: handles `check` arguments it fully understands and returns undefined otherwise (help, an
 * unknown flag, a bad value), so that the full command reports usage problems with help text.
 */
export async function runCheckFast(argv: readonly string[], version: string, earlier?: IndexLook): Promise<number | undefined> {
  const request = parseCheckArgs(argv);
  if (!request) return undefined;
  const outcome = await runCheckRequest(request, version, earlier);
  const exitCode = printed(request, outcome);
  await startResidentAfter(argv, request, outcome.result);
  return exitCode;
}

/**
 * After a plain `check` no resident checker answered (bin/run.js asked): the working directory's checker is started
 * for the next checks when the workspace is large (resident-use.ts) — not by `--no-cache`, which asks for no state
 * kept between checks.
 */
export async function startResidentAfter(argv: readonly string[], request: CheckRequest, result: CheckOutcome['result']): Promise<void> {
  if (!request.cache || !('objects' in result) || result.objects < RESIDENT_FROM_OBJECTS || residentUse(argv, process.env) !== 'auto') return;
  const { startResidentWhenLarge } = await import('./resident.js');
  startResidentWhenLarge(request.cwd ?? process.cwd(), result.objects);
}

/** Prints `outcome` as asked (the report under --json, else its rendering) and returns its exit status. */
export function printed(request: CheckRequest, outcome: CheckOutcome): number {
  process.stdout.write(printedText(request, outcome));
  return outcome.exitCode;
}

/** What `printed` prints (a resident checker sends it to its client). */
export function printedText(request: CheckRequest, outcome: CheckOutcome): string {
  return `${request.json ? JSON.stringify(outcome.result, null, 2) : (outcome.output ?? '')}\n`;
}

/** The flags the lean paths of check and test share: what to load, whether to use the index, JSON output. */
export const TARGET_FLAGS = {
  install: { type: 'string' },
  package: { type: 'string', multiple: true },
  cache: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** What to load and whether to use the index, from the values of TARGET_FLAGS. */
export function targetsOf(values: { install?: string; package?: string[]; 'no-cache'?: boolean }): { install?: string; packages?: string[]; cache: boolean } {
  return {
    ...(values.install !== undefined ? { install: values.install } : {}),
    ...(values.package !== undefined ? { packages: values.package } : {}),
    cache: !values['no-cache'],
  };
}

export function parseCheckArgs(argv: readonly string[]): CheckRequest | undefined {
  // Help, and the core's verdict (which needs the client and the embedded core), go to the full command.
  if (argv.some((arg) => arg === '--help' || arg === '-h' || arg === '--server' || arg.startsWith('--server='))) return undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      // --resident reaches here when no resident checker answered: this process checks.
      options: { ...TARGET_FLAGS, format: { type: 'string' }, 'list-rules': { type: 'boolean' }, 'schema-only': { type: 'boolean' }, resident: { type: 'boolean' }, 'no-resident': { type: 'boolean' } },
    });
    const format = values.format ?? CHECK_FLAGS.format.default;
    if (!(FORMATS as readonly string[]).includes(format)) return undefined;
    return {
      ...targetsOf(values),
      paths: positionals,
      format: format as Format,
      json: values.json ?? false,
      listRules: values['list-rules'] ?? false,
      schemaOnly: values['schema-only'] ?? false,
    };
  } catch {
    return undefined;
  }
}

/** `--no-cache`: no index, even where an earlier check of this process used one (a resident checker, a library caller). */
async function withoutIndex(): Promise<undefined> {
  (await import('../load/parse-cache.js')).useParseCache(undefined);
  return undefined;
}

/**
 * Reuse what earlier runs learnt of unchanged files, from the workspace index in $PACKAGE_SDK_CACHE/check
 * (`check`, and `test` that checks first). The index an earlier check of this process used runs again when it is
 * the same one (a resident checker's, a library caller's): what it read of its files is not read again.
 */
export async function useCheckCache(cwd = process.cwd(), earlier?: IndexLook): Promise<ParseCache> {
  const [{ ParseCache, activeParseCache, useParseCache }, { cacheRoot }] = await Promise.all([import('../load/parse-cache.js'), import('../sources/cache.js')]);
  const [dir, workspace] = [`${cacheRoot()}/check`, resolve(cwd)];
  const active = activeParseCache();
  if (active?.serves(dir, workspace)) {
    active.nextRun(earlier);
    return active;
  }
  const index = new ParseCache(dir, workspace, earlier);
  useParseCache(index);
  return index;
}

async function listRules(json: boolean): Promise<CheckOutcome> {
  const { codeCatalog } = await import('../check/catalog.js');
  const codes = codeCatalog();
  if (json) return { result: { codes }, exitCode: 0 };
  return { result: { codes }, output: renderCodeList(codes), exitCode: 0 };
}

/** The codes under the name of what reports them (load, lock, schema, a rule, plan), one line each. */
function renderCodeList(codes: readonly CodeInfo[]): string {
  const width = Math.max(...codes.map((c) => c.code.length));
  const lines: string[] = [];
  codes.forEach((info, i) => {
    if (info.source !== codes[i - 1]?.source) lines.push(info.source);
    lines.push(`  ${info.code.padEnd(width)}  ${info.severity.padEnd(13)}  ${info.summary}`);
  });
  return lines.join('\n');
}

async function render(format: Format, report: CheckReport, version: string, sourceOf: (file: string) => string | undefined, terminal?: Terminal): Promise<string> {
  const { allFindings, renderCheckText, summaryLine } = await import('../report/check.js');
  const { paintFor } = await import('../report/paint.js');
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2);
    case 'sarif': {
      const { renderSarif } = await import('../report/sarif.js');
      const { codeCatalog } = await import('../check/catalog.js');
      return renderSarif(allFindings(report), { version, summaries: new Map(codeCatalog().map((info) => [info.code, info.summary])) });
    }
    case 'github': {
      const { renderGithub } = await import('../report/github.js');
      return [renderGithub(allFindings(report)), summaryLine(report, paintFor({ isTTY: false }, terminal?.env ?? process.env))].filter(Boolean).join('\n');
    }
    default:
      return renderCheckText(report, sourceOf, terminal === undefined ? paintFor(process.stdout) : paintFor(terminal, terminal.env));
  }
}

/** 0 no errors, 1 errors in what was read, 2 when a file could not be read at all (I/O). */
function exitStatus(report: CheckReport): number {
  if (report.errors.some((finding) => finding.code === 'read_failed')) return 2;
  return report.ok ? 0 : 1;
}

/** The text of a file that did not load as a document (not YAML, say), for its code frame. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
