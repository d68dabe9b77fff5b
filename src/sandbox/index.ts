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
import { Catalog } from './catalog.js';
import type { ElementCoverage, TestResult } from './result.js';
import { runScenario } from './scenario.js';
import { SchemaChecker } from './schemas.js';
import { isRecord } from '../json/guards.js';

export type { TestFailure, TestResult, ElementCoverage, TestSubject } from './result.js';

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
  const ownerOf = fileOwners(workspace);
  const broken = new Set(blocking.map((finding) => ownerOf.get(finding.file) ?? ''));
  for (const pkg of workspace.packages) {
    const catalog = Catalog.forPackage(workspace, pkg.key);
    const blocked = broken.has(pkg.key) || pkg.requires.some((r) => broken.has(r.package));
    for (const test of pkg.tests) {
      if (!selected(options.test, test.document.value, test.file)) continue;
      tests.push(blocked ? refused(test.document.value, test.file, pkg.key) : await runScenario(test.document, catalog, pkg.key, schemas));
    }
  }
  const loose = workspace.files.filter((file) => file.role === 'test');
  if (loose.length > 0) {
    const catalog = Catalog.forLooseObjects(looseObjects(workspace));
    for (const file of loose) {
      if (!selected(options.test, file.document.value, file.file)) continue;
      tests.push(broken.has('') ? refused(file.document.value, file.file, undefined) : await runScenario(file.document, catalog, undefined, schemas));
    }
  }
  const count = (status: TestResult['status']) => tests.filter((t) => t.status === status).length;
  const report: TestReport = {
    ok: blocking.length === 0 && tests.every((t) => t.status === 'passed'),
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    tests,
    coverage: processCoverage(tests),
    problems: blocking,
  };
  return { report, workspace };
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
    failure: {
      code: 'check_failed',
      message: `${pkg === undefined ? 'the files given' : `package ${pkg}`} ${pkg === undefined ? 'have' : 'has'} check errors: fix them first (package-sdk check), then the scenarios run`,
      path: '',
      line: 1,
      column: 1,
    },
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
function looseObjects(workspace: Workspace): PackageObject[] {
  return workspace.files.flatMap((file): PackageObject[] => {
    const value = file.document.value;
    if (file.role !== 'object' || !isRecord(value) || !isObjectKind(value.kind) || typeof value.key !== 'string' || !isRecord(value.spec)) return [];
    const version = value.kind === 'Skill' || value.kind === 'ConnectionType' ? String(value.spec.version ?? '') : undefined;
    const id = version === undefined ? value.key : `${value.key}@${version}`;
    return [{ kind: value.kind, key: value.key, id, ref: `${value.kind}/${id}`, package: '', file: file.file, document: file.document, spec: value.spec, ...(version !== undefined ? { version } : {}) }];
  });
}

function processCoverage(tests: readonly TestResult[]): ProcessCoverage[] {
  const byProcess = new Map<string, { pkg?: string; process: string; total: number; missed: Set<string> }>();
  for (const test of tests) {
    if (test.subject !== 'process' || test.coverage === undefined) continue;
    const key = `${test.package ?? ''}/${test.target}`;
    const known = byProcess.get(key);
    if (known === undefined) {
      byProcess.set(key, { ...(test.package !== undefined ? { pkg: test.package } : {}), process: test.target, total: test.coverage.total, missed: new Set(test.coverage.missed) });
    } else {
      for (const id of known.missed) if (!test.coverage.missed.includes(id)) known.missed.delete(id);
    }
  }
  return [...byProcess.values()].map(({ pkg, process, total, missed }) => {
    const covered = total - missed.size;
    return { ...(pkg !== undefined ? { package: pkg } : {}), process, covered, total, percent: total === 0 ? 100 : Math.round((covered / total) * 1000) / 10, missed: [...missed] };
  });
}
