/**
 * The `check` command's job, shared by the oclif command (src/commands/check.ts) and the lean entry that
 * bin/run.js takes for a plain `check` invocation: a pre-commit hook or an editor runs `check` on every
 * commit or keystroke, and loading the full command framework would cost more than checking a package.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CodeInfo } from '../check/catalog.js';
import type { CheckReport } from '../check/index.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** The flags of `check`, as data: the oclif command declares them from this, the lean entry parses them. */
export const CHECK_FLAGS = {
  install: { summary: 'Installation file (kind: Installation).', helpValue: 'FILE' },
  package: { summary: 'Package directory, or a package key found in ./packages. Repeatable.', helpValue: 'DIR|KEY' },
  format: { summary: 'Output format.', default: 'text' as Format },
  listRules: { summary: 'List every code (findings of check and lock, refusals of plan and apply) with its severity and meaning, and exit.' },
  cache: { summary: 'Reuse what earlier runs learnt of unchanged files (in $PACKAGE_SDK_CACHE/check); --no-cache parses everything afresh.' },
};

export interface CheckRequest {
  install?: string;
  packages?: string[];
  paths: string[];
  format: Format;
  json: boolean;
  listRules: boolean;
  /** Reuse parsed files and schema verdicts of unchanged files across runs. */
  cache: boolean;
}

export interface CheckOutcome {
  /** What `--json` prints. */
  result: CheckReport | { codes: CodeInfo[] };
  /** Human output (or the chosen format), when not `--json`. */
  output?: string;
  exitCode: number;
}

export async function runCheckRequest(request: CheckRequest, version: string): Promise<CheckOutcome> {
  if (request.listRules) return listRules(request.json);
  const { check } = await import('../check/index.js');
  if (request.cache) await useCheckCache();
  const { workspace, report } = await check({
    ...(request.install ? { install: request.install } : {}),
    ...(request.packages ? { packages: request.packages } : {}),
    paths: request.paths,
  });
  const exitCode = exitStatus(report);
  if (request.json) return { result: report, exitCode };
  const documents = workspace.documents();
  const output = await render(request.format, report, version, (file) => documents.get(file)?.text ?? readText(file));
  return { result: report, output, exitCode };
}

/**
 * The lean entry: handles `check` arguments it fully understands and returns undefined otherwise (help, an
 * unknown flag, a bad value), so that the full command reports usage problems with help text.
 */
export async function runCheckFast(argv: readonly string[], version: string): Promise<number | undefined> {
  const request = parseCheckArgs(argv);
  if (!request) return undefined;
  const outcome = await runCheckRequest(request, version);
  process.stdout.write(`${request.json ? JSON.stringify(outcome.result, null, 2) : (outcome.output ?? '')}\n`);
  return outcome.exitCode;
}

function parseCheckArgs(argv: readonly string[]): CheckRequest | undefined {
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        install: { type: 'string' },
        package: { type: 'string', multiple: true },
        format: { type: 'string' },
        'list-rules': { type: 'boolean' },
        cache: { type: 'boolean' },
        'no-cache': { type: 'boolean' },
        json: { type: 'boolean' },
      },
    });
    const format = values.format ?? CHECK_FLAGS.format.default;
    if (!(FORMATS as readonly string[]).includes(format)) return undefined;
    return {
      ...(values.install !== undefined ? { install: values.install } : {}),
      ...(values.package !== undefined ? { packages: values.package } : {}),
      paths: positionals,
      format: format as Format,
      json: values.json ?? false,
      listRules: values['list-rules'] ?? false,
      cache: !values['no-cache'],
    };
  } catch {
    return undefined;
  }
}

/** Parsed files and schema verdicts of unchanged files from earlier runs (in $PACKAGE_SDK_CACHE/check). */
export async function useCheckCache(): Promise<void> {
  const [{ ParseCache, useParseCache }, { cacheRoot }] = await Promise.all([import('../load/parse-cache.js'), import('../sources/cache.js')]);
  useParseCache(new ParseCache(`${cacheRoot()}/check`));
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

async function render(format: Format, report: CheckReport, version: string, sourceOf: (file: string) => string | undefined): Promise<string> {
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
      return [renderGithub(allFindings(report)), summaryLine(report, paintFor({ isTTY: false }))].filter(Boolean).join('\n');
    }
    default:
      return renderCheckText(report, sourceOf, paintFor(process.stdout));
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
