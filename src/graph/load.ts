/**
 * The processes a `graph` target names, with what `check` says of them: a package directory gives its own
 * processes; a process file gives itself, checked within the package that holds it (the rules see packages,
 * not loose files); a file in no package is drawn as it is, without check's findings.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import { check } from '../check/index.js';
import { isRecord } from '../json/guards.js';
import { isError, type Finding } from '../model/finding.js';
import { Refusal } from '../fs/refusal.js';
import { processModel } from '../process/index.js';
import { coverageItems } from '../sandbox/coverage.js';
import { reachOfProcess, type ProcessReach } from './coverage.js';
import { processDiagram, type Diagram } from './diagram.js';
import { unreachableFindings, unreachablePointers } from './unreachable.js';

/** A process as drawn: its object and the findings that mark it. */
export interface ProcessSource {
  key: string;
  /** The package that holds it (undefined for a loose file). */
  package?: string;
  file: string;
  spec: Readonly<Record<string, unknown>>;
  /** Findings of `check` that report parts of it unreachable. */
  unreachable: Finding[];
}

export interface GraphTarget {
  processes: ProcessSource[];
  /** Errors of `check` in what was read (a process with errors is still drawn as far as it parses). */
  errors: Finding[];
  /** Said once to the user: what the drawing cannot show. */
  notes: string[];
}

const MANIFEST = 'package.yaml';

/** Loads and checks `target` (a package directory or a process file), relative to `cwd`. */
export async function loadGraphTarget(target: string, cwd = process.cwd()): Promise<GraphTarget> {
  const absolute = resolve(cwd, target);
  if (!existsSync(absolute)) throw new Refusal('target_not_found', `${target}: no such file or directory`, { hint: 'give a package directory or a process file', exitCode: 2 });
  const directory = statSync(absolute).isDirectory();
  const packageDir = directory ? absolute : enclosingPackage(absolute);
  const { report, workspace } = await check({ cwd, paths: [packageDir ?? absolute] });
  const findings = [...report.errors, ...report.warnings];
  const own = workspace.packages.find((pkg) => pkg.dir === packageDir || resolve(pkg.dir) === packageDir);
  const objects = packageDir === undefined
    ? workspace.files.flatMap((file) => (isRecord(file.document.value) && file.document.value.kind === 'Process' && isRecord(file.document.value.spec)
      ? [{ key: String(file.document.value.key), file: file.file, spec: file.document.value.spec }]
      : []))
    : (own?.objects ?? []).filter((object) => object.kind === 'Process' && (directory || resolve(cwd, object.file) === absolute))
      .map((object) => ({ key: object.key, package: object.package, file: object.file, spec: object.spec }));
  if (objects.length === 0) {
    const load = report.errors.find((finding) => finding.code === 'package_not_found' || finding.code === 'read_failed' || finding.code === 'yaml_syntax');
    throw new Refusal('process_not_found', `${target}: ${load ? `${load.message} (${load.file}:${load.line})` : 'holds no Process'}`, {
      hint: 'give a package directory with processes/, or a file of kind: Process', exitCode: load ? 1 : 2,
    });
  }
  return {
    processes: objects.map((object) => ({ ...object, unreachable: unreachableFindings(findings, object.file) })),
    errors: report.errors.filter(isError),
    notes: packageDir === undefined ? [`${target} is in no package: check's findings (unreachable parts) are not drawn`] : [],
  };
}

/** The directory of the nearest package.yaml above `file`. */
function enclosingPackage(file: string): string | undefined {
  const { root } = parse(file);
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, MANIFEST))) return dir;
    if (dir === root) return undefined;
  }
}

/** The diagram of a loaded process, with its unreachable parts and (given a test run's coverage) what the run reached. */
export function diagramOf(source: ProcessSource, coverage?: readonly ProcessReach[]): Diagram {
  const model = processModel(source.spec);
  const reach = coverage === undefined ? undefined : reachOfProcess(coverage, source.key, source.package, coverageItems(model).elements);
  return processDiagram(source.key, source.spec, {
    unreachable: unreachablePointers(model, source.unreachable.map((finding) => finding.path)),
    ...(reach !== undefined ? { coverage: reach } : {}),
  });
}
