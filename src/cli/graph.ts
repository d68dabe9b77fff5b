/**
 * The `graph` command's job, shared by the oclif command (src/commands/graph.ts) and the lean entry bin/run.js
 * takes for a plain `graph` invocation, as for `check`: drawing a process is what an author does between two
 * edits, and the command framework alone would cost more than the drawing. The WebAssembly Graphviz loads only
 * for `--format svg` and `html`.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { replaceFile } from '../fs/write.js';
import type { ProcessReach } from '../graph/coverage.js';
import type { Diagram } from '../graph/diagram.js';
import type { ProcessSource } from '../graph/load.js';
import { Refusal } from '../fs/refusal.js';
import { useCheckCache } from './check.js';

export const GRAPH_FORMATS = ['mermaid', 'dot', 'svg', 'html'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

/** The flags of `graph`, as data: the oclif command declares them from this, the lean entry parses them. */
export const GRAPH_FLAGS = {
  format: { summary: 'mermaid (text for Markdown), dot (Graphviz source), svg (one process), or html (a page with every process).', default: 'mermaid' as GraphFormat },
  coverage: { summary: 'Mark what a test run reached: the output of package-sdk test --json.', helpValue: 'FILE' },
  out: { summary: 'Write the diagram to this file instead of printing it.', helpValue: 'FILE' },
  process: { summary: 'Only the process with this key (a package with several processes, for mermaid and svg).', helpValue: 'KEY' },
  cache: { summary: "Reuse what check learnt of unchanged files (as check does); --no-cache reads everything afresh." },
};

export interface GraphRequest {
  /** A package directory or a process file. */
  target: string;
  format: GraphFormat;
  coverage?: string;
  out?: string;
  process?: string;
  cache: boolean;
}

/** What `graph` gives, and what `graph --json` prints. */
export interface GraphOutcome {
  format: GraphFormat;
  /** The processes drawn. */
  processes: { key: string; package?: string; file: string }[];
  /** The diagram, or (with `out`) nothing. */
  output: string;
  /** The file written, with `out`. */
  out?: string;
  /** What the user should know: what the picture cannot show, check's errors. */
  notes: string[];
}

export async function runGraph(request: GraphRequest): Promise<GraphOutcome> {
  if (request.cache) await useCheckCache();
  const { diagramOf, loadGraphTarget } = await import('../graph/load.js');
  const target = await loadGraphTarget(request.target);
  const processes = selected(target.processes, request);
  const coverage = request.coverage === undefined ? undefined : await coverageFile(request.coverage);
  const drawn = processes.map((source) => ({ source, diagram: diagramOf(source, coverage) }));
  const text = await render(request.format, drawn, request.target, target.notes);
  const notes = [...target.notes];
  if (target.errors.length > 0) notes.push(`check reports ${target.errors.length} error${target.errors.length === 1 ? '' : 's'} in ${request.target}: the picture shows what parses (package-sdk check ${request.target})`);
  const drawnProcesses = processes.map((source) => ({ key: source.key, ...(source.package !== undefined ? { package: source.package } : {}), file: source.file }));
  if (request.out === undefined) return { format: request.format, processes: drawnProcesses, output: text, notes };
  await replaceFile(request.out, text.endsWith('\n') ? text : `${text}\n`);
  return { format: request.format, processes: drawnProcesses, output: '', out: request.out, notes: [...notes, `wrote ${request.out}`] };
}

/**
 * The lean entry: handles `graph` arguments it fully understands and returns undefined otherwise (help, an
 * unknown flag, a bad value), so that the full command reports usage problems with help text.
 */
export async function runGraphFast(argv: readonly string[]): Promise<number | undefined> {
  const request = parseGraphArgs(argv);
  if (request === undefined) return undefined;
  try {
    const outcome = await runGraph(request);
    for (const note of outcome.notes) process.stderr.write(`${note}\n`);
    if (outcome.output !== '') process.stdout.write(outcome.output.endsWith('\n') ? outcome.output : `${outcome.output}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    process.stderr.write(`error ${error.code}: ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}\n`);
    return error.exitCode;
  }
}

function parseGraphArgs(argv: readonly string[]): GraphRequest | undefined {
  if (argv.some((arg) => arg === '--help' || arg === '-h' || arg === '--json')) return undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv], allowPositionals: true, strict: true,
      options: { format: { type: 'string' }, coverage: { type: 'string' }, out: { type: 'string' }, process: { type: 'string' }, cache: { type: 'boolean' }, 'no-cache': { type: 'boolean' } },
    });
    const format = values.format ?? GRAPH_FLAGS.format.default;
    if (positionals.length !== 1 || !(GRAPH_FORMATS as readonly string[]).includes(format)) return undefined;
    return {
      target: positionals[0]!, format: format as GraphFormat, cache: !values['no-cache'],
      ...(values.coverage !== undefined ? { coverage: values.coverage } : {}),
      ...(values.out !== undefined ? { out: values.out } : {}),
      ...(values.process !== undefined ? { process: values.process } : {}),
    };
  } catch {
    return undefined;
  }
}

function selected(processes: ProcessSource[], request: GraphRequest): ProcessSource[] {
  const keys = processes.map((source) => source.key).join(', ');
  if (request.process !== undefined) {
    const chosen = processes.filter((source) => source.key === request.process);
    if (chosen.length === 0) throw new Refusal('process_not_found', `${request.target} has no process '${request.process}' (it has ${keys})`, { hint: `--process one of ${keys}`, exitCode: 2 });
    return chosen;
  }
  if (processes.length > 1 && (request.format === 'mermaid' || request.format === 'svg')) {
    throw new Refusal('process_ambiguous', `${request.target} has ${processes.length} processes (${keys}); ${request.format} draws one`, {
      hint: `choose one with --process KEY, or draw them all with --format html or dot`, exitCode: 2,
    });
  }
  return processes;
}

async function coverageFile(file: string): Promise<ProcessReach[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Refusal('coverage_invalid', `${file}: cannot be read as JSON: ${(error as Error).message}`, { hint: 'give the file package-sdk test --json wrote', exitCode: 2 });
  }
  const { readCoverage } = await import('../graph/coverage.js');
  return readCoverage(value, file);
}

async function render(format: GraphFormat, drawn: { source: ProcessSource; diagram: Diagram }[], target: string, notes: readonly string[]): Promise<string> {
  switch (format) {
    case 'mermaid': {
      const { renderMermaid } = await import('../graph/mermaid.js');
      return renderMermaid(drawn[0]!.diagram);
    }
    case 'dot': {
      const { renderDot } = await import('../graph/dot.js');
      return drawn.map(({ diagram }) => renderDot(diagram)).join('\n\n');
    }
    case 'svg': {
      const [{ renderDot }, { renderSvg }] = await Promise.all([import('../graph/dot.js'), import('../graph/svg.js')]);
      return renderSvg(renderDot(drawn[0]!.diagram));
    }
    case 'html': {
      const [{ renderDot }, { renderSvg }, { renderGraphHtml }] = await Promise.all([import('../graph/dot.js'), import('../graph/svg.js'), import('../report/graph-html.js')]);
      const processes = [];
      for (const { source, diagram } of drawn) processes.push({ diagram, file: source.file, svg: await renderSvg(renderDot(diagram)) });
      return renderGraphHtml(`Processes of ${target}`, processes, notes);
    }
  }
}
