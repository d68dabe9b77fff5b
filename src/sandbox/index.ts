/**
 * `package-sdk test` as a library: check the targets first (a package with errors runs no scenarios, as in the
 * reference's pyramid), then run every scenario (`tests/*.test.yaml` of the packages, and test files given on
 * their own with the loose objects next to them) in the local engine, as the core's sandbox runs them; then
 * the coverage of each process, work rule and task type over all its tests.
 *
 *   const { report } = await runTests({ paths: ['packages/claims'] });
 *   report.ok; report.tests[0].failures[0]?.message; report.coverage[0].transitions.missed
 */
import { basename } from 'node:path';
import { check, type CheckOptions } from '../check/index.js';
import { isError, type Finding } from '../model/finding.js';
import { isObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import type { SourceDocument } from '../json/document.js';
import { Catalog } from './catalog.js';
import { countOf, coverageItems, ruleCoverageItems, taskTypeCoverageItems, type CoverageCount, type RuleCoverage, type SubjectCoverage, type TaskTypeCoverage } from './coverage.js';
import { processModel } from '../process/index.js';
import type { ElementCoverage, TestResult } from './result.js';
import { runScenario } from './scenario.js';
import { SchemaChecker } from './schemas.js';
import { isRecord } from '../json/guards.js';

export type { TestFailure, TestResult, ElementCoverage, CoverageCount, RuleCoverage, SubjectCoverage, TaskTypeCoverage, TestSubject } from './result.js';

export interface TestOptions extends CheckOptions {
  /** Only the tests whose `name`, file name (with or without `.test.yaml`) or path is this; a name no test has is refused. */
  test?: string;
  /** Only the test files at these paths (as the report names them). */
  files?: readonly string[];
}

export interface ProcessCoverage extends ElementCoverage {
  package?: string;
  process: string;
  version?: number;
}

export interface RuleCoverageReport extends RuleCoverage {
  package?: string;
  rule: string;
  /** Tests of the rule. */
  tests: number;
}

export interface TaskTypeCoverageReport extends TaskTypeCoverage {
  package?: string;
  taskType: string;
  /** Tests of the task type. */
  tests: number;
}

/** What `test` returns, and what `test --json` prints. */
export interface TestReport {
  ok: boolean;
  passed: number;
  failed: number;
  /** Tests that could not run: their package has check errors, or the engine broke. */
  errors: number;
  tests: TestResult[];
  /** Per process: what any of its tests reached — elements, transitions, decision rows, handlers. */
  coverage: ProcessCoverage[];
  /** Per work rule with tests: their outcomes and the branches of its condition. */
  ruleCoverage: RuleCoverageReport[];
  /** Per task type with tests: gate outcomes, preconditions, completion actions, acceptance criteria. */
  taskTypeCoverage: TaskTypeCoverageReport[];
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
  // Objects given beside test files are their catalog; given alone, there is nothing to run.
  if (workspace.files.length > 0 && !workspace.files.some((f) => f.role === 'test')) throw new NotATestFile(workspace.files.map((f) => f.file));
  let looseCatalog: Catalog | undefined;
  for (const file of workspace.files.filter((f) => f.role === 'test')) {
    candidates.push({ document: file.document, file: file.file, catalog: () => (looseCatalog ??= catalogOfLooseFiles(workspace)), blocked: broken.has('') });
  }
  const chosen = candidates.filter((candidate) => selected(options.test, candidate.document.value, candidate.file) && (options.files === undefined || options.files.includes(candidate.file)));
  if (options.test !== undefined && chosen.length === 0) throw new NoTestSelected(options.test, candidates.map((candidate) => testName(candidate.document.value, candidate.file)));
  for (const candidate of chosen) {
    const result = candidate.blocked ? refused(candidate.document.value, candidate.file, candidate.pkg) : await runScenario(candidate.document, candidate.catalog(), candidate.pkg, schemas);
    catalogs.set(result, candidate.catalog());
    tests.push(result);
  }
  const count = (status: TestResult['status']) => tests.filter((t) => t.status === status).length;
  const specOf = (test: TestResult, kind: 'Process' | 'WorkRule' | 'TaskType') => catalogs.get(test)?.object(kind, test.target);
  const report: TestReport = {
    ok: blocking.length === 0 && tests.every((t) => t.status === 'passed'),
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    tests,
    coverage: processCoverage(tests, specOf),
    ruleCoverage: ruleCoverage(tests, specOf),
    taskTypeCoverage: taskTypeCoverage(tests, specOf),
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
    this.details = { test, tests: [...names] };
  }
}

/** File targets of `test` of which none is a scenario: running nothing and saying `0 passed` would hide the mistake. */
export class NotATestFile extends Error {
  readonly code = 'not_a_test_file';
  readonly exitCode = 2;
  readonly details: { files: string[] };

  constructor(files: readonly string[]) {
    super(`${files.join(', ')} ${files.length === 1 ? 'is not a test file' : 'are not test files'}: test runs scenarios, files named *.test.yaml, and the tests of packages`);
    this.details = { files: [...files] };
  }
}

function testName(value: unknown, file: string): string {
  return isRecord(value) && typeof value.name === 'string' ? value.name : file;
}

/** Whether `--test` selects a test: by its name, its file name (with or without `.test.yaml`) or its path. */
export function selected(filter: string | undefined, value: unknown, file: string): boolean {
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

/** Per subject (a process, a rule, a task type): what any of its tests reached, kind by kind. */
interface Aggregate {
  pkg?: string;
  target: string;
  /** Its first test (for what the subject itself says, like a process's version). */
  first: TestResult;
  tests: number;
  items: Record<string, string[]>;
  missed: Record<string, Set<string>>;
}

function aggregate(tests: readonly TestResult[], subject: TestResult['subject'], itemsOf: (test: TestResult) => Record<string, string[]> | undefined): Aggregate[] {
  const byTarget = new Map<string, Aggregate>();
  for (const test of tests) {
    const items = test.subject === subject && test.coverage !== undefined ? itemsOf(test) : undefined;
    if (items === undefined) continue;
    const missed = countsByKind(test.coverage!);
    const key = `${test.package ?? ''}/${test.target}`;
    const known = byTarget.get(key);
    if (known === undefined) {
      const sets = Object.fromEntries(Object.keys(items).map((kind) => [kind, new Set(missed[kind]?.missed ?? items[kind])]));
      byTarget.set(key, { ...(test.package !== undefined ? { pkg: test.package } : {}), target: test.target, first: test, tests: 1, items, missed: sets });
      continue;
    }
    known.tests++;
    for (const kind of Object.keys(items)) for (const id of known.missed[kind]!) if (!(missed[kind]?.missed ?? []).includes(id)) known.missed[kind]!.delete(id);
  }
  return [...byTarget.values()];
}

/** The counts of a test's coverage by kind (a process's elements under `elements`). */
function countsByKind(coverage: SubjectCoverage): Record<string, CoverageCount> {
  if (!('percent' in coverage)) return { ...coverage };
  const { transitions, decisionRows, handlers, ...elements } = coverage;
  return { elements, transitions, decisionRows, handlers };
}

function countOfAggregate(aggregate: Aggregate, kind: string): CoverageCount {
  const items = aggregate.items[kind] ?? [];
  return countOf(items, new Set(items.filter((id) => !aggregate.missed[kind]!.has(id))));
}

function processCoverage(tests: readonly TestResult[], specOf: (test: TestResult, kind: 'Process' | 'WorkRule' | 'TaskType') => PackageObject | undefined): ProcessCoverage[] {
  return aggregate(tests, 'process', (test) => {
    const process = specOf(test, 'Process');
    return process === undefined ? undefined : coverageItems(processModel(process.spec));
  }).map((a) => ({
    ...(a.pkg !== undefined ? { package: a.pkg } : {}),
    process: a.target,
    ...versionOf(specOf(a.first, 'Process')),
    ...countOfAggregate(a, 'elements'),
    transitions: countOfAggregate(a, 'transitions'),
    decisionRows: countOfAggregate(a, 'decisionRows'),
    handlers: countOfAggregate(a, 'handlers'),
  }));
}

function versionOf(process: PackageObject | undefined): { version?: number } {
  return typeof process?.spec.version === 'number' ? { version: process.spec.version } : {};
}

function ruleCoverage(tests: readonly TestResult[], specOf: (test: TestResult, kind: 'WorkRule') => PackageObject | undefined): RuleCoverageReport[] {
  return aggregate(tests, 'rule', (test) => {
    const rule = specOf(test, 'WorkRule');
    return rule === undefined ? undefined : ruleCoverageItems(rule.spec);
  }).map((a) => ({ ...(a.pkg !== undefined ? { package: a.pkg } : {}), rule: a.target, tests: a.tests, outcomes: countOfAggregate(a, 'outcomes'), branches: countOfAggregate(a, 'branches') }));
}

function taskTypeCoverage(tests: readonly TestResult[], specOf: (test: TestResult, kind: 'TaskType') => PackageObject | undefined): TaskTypeCoverageReport[] {
  return aggregate(tests, 'taskType', (test) => {
    const type = specOf(test, 'TaskType');
    return type === undefined ? undefined : taskTypeCoverageItems(type.spec);
  }).map((a) => ({
    ...(a.pkg !== undefined ? { package: a.pkg } : {}),
    taskType: a.target, tests: a.tests,
    outcomes: countOfAggregate(a, 'outcomes'), preconditions: countOfAggregate(a, 'preconditions'),
    completion: countOfAggregate(a, 'completion'), acceptance: countOfAggregate(a, 'acceptance'),
  }));
}
