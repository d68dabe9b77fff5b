/**
 * `package-sdk test` as a library: check the targets first (a package with errors runs no scenarios, as in the
 * reference's pyramid), then run every scenario (`tests/*.test.yaml` of the packages, and test files given on
 * their own with the loose objects next to them) in the local engine.
 *
 *   const { report } = await runTests({ paths: ['packages/claims'] });
 *   report.ok; report.tests[0].failure?.message
 */
import { basename } from 'node:path';
import { check, type CheckOptions } from '../check/index.js';
import { isError, type Finding } from '../model/finding.js';
import { isObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import type { SourceDocument } from '../json/document.js';
import { Catalog } from './catalog.js';
import { COVERAGE_KINDS, countOf, coverageItems, type CoverageKind } from './coverage.js';
import { processModel } from '../process/index.js';
import type { ElementCoverage, TestResult } from './result.js';
import { runScenario } from './scenario.js';
import { SchemaChecker } from './schemas.js';
import { isRecord } from '../json/guards.js';

export type { TestFailure, TestResult, ElementCoverage, CoverageCount, TestSubject } from './result.js';

export interface TestOptions extends CheckOptions {
  /** Only the tests whose `name`, file name (with or without `.test.yaml`) or path is this. */
  test?: string;
}

export interface ProcessCoverage extends ElementCoverage {
  package?: string;
  process: string;
}

/** What `test` returns, and what `test --json` prints. */
export interface TestReport {
  ok: boolean;
  passed: number;
  failed: number;
  /** Tests that could not run: their package has check errors, or the engine broke. */
  errors: number;
  tests: TestResult[];
  /** Per process: elements reached by any of its tests. */
  coverage: ProcessCoverage[];
  /** Check errors that kept scenarios from running. */
  problems: Finding[];
}

export async function runTests(options: TestOptions = {}): Promise<{ report: TestReport; workspace: Workspace }> {
  const { report: checked, workspace } = await check(options);
  const blocking = checked.errors.filter(isError);
  const schemas = new SchemaChecker();
  const tests: TestResult[] = [];
  const catalogs = new Map<TestResult, Catalog>();
  const ownerOf = fileOwners(workspace);
  const broken = new Set(blocking.map((finding) => ownerOf.get(finding.file) ?? ''));
  const candidates: { document: SourceDocument; file: string; pkg?: string; catalog: () => Catalog; blocked: boolean }[] = [];
  for (const pkg of workspace.packages) {
    let catalog: Catalog | undefined;
    const blocked = broken.has(pkg.key) || pkg.requires.some((r) => broken.has(r.package));
    for (const test of pkg.tests) candidates.push({ document: test.document, file: test.file, pkg: pkg.key, catalog: () => (catalog ??= Catalog.forPackage(workspace, pkg.key)), blocked });
  }
  let looseCatalog: Catalog | undefined;
  for (const file of workspace.files.filter((f) => f.role === 'test')) {
    candidates.push({ document: file.document, file: file.file, catalog: () => (looseCatalog ??= catalogOfLooseFiles(workspace)), blocked: broken.has('') });
  }
  const chosen = candidates.filter((candidate) => selected(options.test, candidate.document.value, candidate.file));
  if (options.test !== undefined && chosen.length === 0) throw new NoTestSelected(options.test, candidates.map((candidate) => testName(candidate.document.value, candidate.file)));
  for (const candidate of chosen) {
    const result = candidate.blocked ? refused(candidate.document.value, candidate.file, candidate.pkg) : await runScenario(candidate.document, candidate.catalog(), candidate.pkg, schemas);
    catalogs.set(result, candidate.catalog());
    tests.push(result);
  }
  const count = (status: TestResult['status']) => tests.filter((t) => t.status === status).length;
  const report: TestReport = {
    ok: blocking.length === 0 && tests.every((t) => t.status === 'passed'),
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    tests,
    coverage: processCoverage(tests, (test) => {
      const process = catalogs.get(test)?.object('Process', test.target);
      return process === undefined ? undefined : coverageItems(processModel(process.spec));
    }),
    problems: blocking,
  };
  return { report, workspace };
}

/** `--test` that names no test: a refusal (exit 2), with the names there are. */
export class NoTestSelected extends Error {
  readonly code = 'no_test_selected';
  readonly exitCode = 2;
  readonly details: { test: string; tests: string[] };

  constructor(test: string, names: readonly string[]) {
    super(`no test is named '${test}' (by its name, file name or path)${names.length === 0 ? ': there are no tests' : `; the tests are: ${names.map((name) => `'${name}'`).join(', ')}`}`);
    this.name = 'NoTestSelected';
    this.details = { test, tests: [...names] };
  }
}

function testName(value: unknown, file: string): string {
  return isRecord(value) && typeof value.name === 'string' ? value.name : file;
}

function selected(filter: string | undefined, value: unknown, file: string): boolean {
  if (filter === undefined) return true;
  const name = isRecord(value) ? value.name : undefined;
  const base = basename(file);
  return filter === name || filter === file || filter === base || `${filter}.test.yaml` === base || file.endsWith(`/${filter}`);
}

function refused(value: unknown, file: string, pkg: string | undefined): TestResult {
  const test = isRecord(value) ? value : {};
  const subject = test.subject === 'rule' || test.subject === 'taskType' ? test.subject : 'process';
  return {
    name: typeof test.name === 'string' ? test.name : file,
    file,
    ...(pkg !== undefined ? { package: pkg } : {}),
    subject,
    target: String(test[subject] ?? ''),
    status: 'error',
    steps: 0,
    failures: [{
      code: 'check_failed',
      message: `${pkg === undefined ? 'the files given' : `package ${pkg}`} ${pkg === undefined ? 'have' : 'has'} check errors: fix them first (package-sdk check), then the scenarios run`,
      path: '',
      line: 1,
      column: 1,
    }],
  };
}

/** Which package each loaded file belongs to ('' for loose files and the installation). */
function fileOwners(workspace: Workspace): Map<string, string> {
  const owners = new Map<string, string>();
  for (const pkg of workspace.packages) {
    owners.set(pkg.manifest.file, pkg.key);
    for (const part of [pkg.objects, pkg.tests, pkg.dictionaries, pkg.dataSchemas]) for (const item of part) owners.set(item.file, pkg.key);
  }
  return owners;
}

/** Objects given as single files, as a catalog of their own (a process with its calendar). */
export function catalogOfLooseFiles(workspace: Workspace): Catalog {
  return Catalog.forLooseObjects(looseObjects(workspace));
}

function looseObjects(workspace: Workspace): PackageObject[] {
  return workspace.files.flatMap((file): PackageObject[] => {
    const value = file.document.value;
    if (file.role !== 'object' || !isRecord(value) || !isObjectKind(value.kind) || typeof value.key !== 'string' || !isRecord(value.spec)) return [];
    const version = value.kind === 'Skill' || value.kind === 'ConnectionType' ? String(value.spec.version ?? '') : undefined;
    const id = version === undefined ? value.key : `${value.key}@${version}`;
    return [{ kind: value.kind, key: value.key, id, ref: `${value.kind}/${id}`, package: '', file: file.file, document: file.document, spec: value.spec, ...(version !== undefined ? { version } : {}) }];
  });
}

/** Per process: what any of its tests reached, kind by kind. */
function processCoverage(tests: readonly TestResult[], itemsOf: (test: TestResult) => Record<CoverageKind, string[]> | undefined): ProcessCoverage[] {
  const byProcess = new Map<string, { pkg?: string; process: string; items: Record<CoverageKind, string[]>; missed: Record<CoverageKind, Set<string>> }>();
  for (const test of tests) {
    const items = test.subject === 'process' && test.coverage !== undefined ? itemsOf(test) : undefined;
    if (items === undefined) continue;
    const key = `${test.package ?? ''}/${test.target}`;
    const missed = missedOf(test.coverage!);
    const known = byProcess.get(key);
    if (known === undefined) {
      const sets = Object.fromEntries(COVERAGE_KINDS.map((kind) => [kind, new Set(missed[kind])])) as Record<CoverageKind, Set<string>>;
      byProcess.set(key, { ...(test.package !== undefined ? { pkg: test.package } : {}), process: test.target, items, missed: sets });
      continue;
    }
    for (const kind of COVERAGE_KINDS) for (const id of known.missed[kind]) if (!missed[kind].includes(id)) known.missed[kind].delete(id);
  }
  return [...byProcess.values()].map(({ pkg, process, items, missed }) => {
    const count = (kind: CoverageKind) => countOf(items[kind], new Set(items[kind].filter((id) => !missed[kind].has(id))));
    return {
      ...(pkg !== undefined ? { package: pkg } : {}),
      process,
      ...count('elements'),
      transitions: count('transitions'),
      decisionRows: count('decisionRows'),
      handlers: count('handlers'),
    };
  });
}

function missedOf(coverage: ElementCoverage): Record<CoverageKind, string[]> {
  return { elements: coverage.missed, transitions: coverage.transitions.missed, decisionRows: coverage.decisionRows.missed, handlers: coverage.handlers.missed };
}
