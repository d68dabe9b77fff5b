/**
 * `POST /api/v1/packages:test` (compat-core-packages §6): the package read as the core reads it, the tests
 * selected (a named file that is no test is `unknown_test`), the core's own checks of the objects — and,
 * unless `checkOnly` or an error was found, the selected scenarios run by the engine. `status` is `invalid`
 * when a problem is an error (then nothing ran), else `failed` when a test did not pass, else `passed`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PackageFile, PackageTestStatus } from '../contract/packages.js';
import { runTests } from '../sandbox/index.js';
import { toCoreProcessCoverage, toCoreRuleCoverage, toCoreTaskTypeCoverage, toCoreTest } from '../sandbox/core-shape.js';
import { coreFindings } from './core-checks.js';
import { CoreError } from './errors.js';
import { type PackageSource, readPackageSource } from './package-source.js';
import { type Problem, isErrorProblem, problemAt, problemIn, sortProblems, withoutRepeats } from './problems.js';
import type { PackageTester, ScenarioResults, ScenarioRun } from './route.js';
import type { Store } from './store.js';

export interface PackageTestRequest {
  package: { files: PackageFile[] };
  tests?: string[];
  workspaceId?: string | null;
  checkOnly: boolean;
}

export interface PackageTestOut extends ScenarioResults {
  status: PackageTestStatus;
  checkOnly: boolean;
  problems: Problem[];
  durationMs: number;
}

/** More rule and task-type tests than this in one request is `too_many_tests`: each runs the core's real commands. */
const MAX_COMMAND_TESTS = 100;
const NOTHING_RAN: ScenarioResults = { tests: [], coverage: [], ruleCoverage: [], taskTypeCoverage: [] };

export async function testPackage(request: PackageTestRequest, store: Store, engine: PackageTester): Promise<PackageTestOut> {
  const started = performance.now();
  const files = request.package.files;
  const workspaceId = request.workspaceId ?? null;
  const source = await readPackageSource(files, workspaceId);
  const selected = selectTests(source, request.tests);
  const problems = withoutRepeats([...source.problems, ...selected.problems, ...versionMismatches(source), ...(await coreFindings(files, source, { defaults: true }))]);
  if (workspaceId !== null && !store.get('workspaces', workspaceId.toLowerCase())) throw new CoreError(404, 'not_found', 'Workspace not found', { workspaceId });
  const invalid = problems.some(isErrorProblem);
  const results = request.checkOnly || invalid ? NOTHING_RAN : await engine({ files, tests: selected.files, workspaceId });
  const status: PackageTestStatus = invalid ? 'invalid' : results.tests.every((test) => test.status === 'passed') ? 'passed' : 'failed';
  return { status, checkOnly: request.checkOnly, problems: sortProblems(problems), ...results, durationMs: Math.round(performance.now() - started) };
}

/** The tests the request names (all of them when it names none); a name that is no test of the package is `unknown_test`. */
function selectTests(source: PackageSource, named: readonly string[] | undefined): { files: string[]; problems: Problem[] } {
  const valid = new Set(source.tests.map((test) => test.file));
  const reported = new Set(source.problems.map((problem) => problem.file));
  const problems: Problem[] = [];
  (named ?? []).forEach((name, index) => {
    if (!valid.has(name) && !reported.has(name)) problems.push(problemAt(null, null, 'unknown_test', `/tests/${index}`, `${name} is not a test of the package (tests/…/*.test.yaml)`));
  });
  const files = named === undefined ? [...valid] : [...new Set(named.filter((name) => valid.has(name)))];
  const commandTests = source.tests.filter((test) => files.includes(test.file) && test.subject !== 'process').length;
  if (commandTests > MAX_COMMAND_TESTS) {
    problems.push(problemAt(null, null, 'too_many_tests', '/tests', `${commandTests} rule and task-type tests: at most ${MAX_COMMAND_TESTS} run in one request`));
  }
  return { files, problems };
}

/** A process test pinned to a `version` other than the package's process version. */
function versionMismatches(source: PackageSource): Problem[] {
  return source.tests.flatMap((test) => {
    const version = (test.document.value as { version?: unknown }).version;
    const process = source.objects.find((object) => object.kind === 'Process' && object.key === test.target);
    if (test.subject !== 'process' || version === undefined || !process || version === process.spec.version) return [];
    return [problemIn(test.document, 'test_version_mismatch', '/version', `the test runs version ${String(version)} of process ${test.target}, and the package has version ${String(process.spec.version)}`)];
  });
}

/**
 * The engine behind the scenarios: the request's files become a package directory in a temporary folder —
 * without the test files the request did not select — and run as `package-sdk test` runs them.
 */
export async function runScenarios(run: ScenarioRun): Promise<ScenarioResults> {
  const root = await mkdtemp(join(tmpdir(), 'package-sdk-test-'));
  // The directory is named by the package key, as a package checked out of git would be.
  const dir = join(root, packageKey(run.files) ?? 'package');
  const selected = new Set(run.tests);
  try {
    for (const file of run.files) {
      if (/^tests\/.*\.test\.ya?ml$/.test(file.path) && !selected.has(file.path)) continue;
      const target = resolve(dir, file.path);
      if (!target.startsWith(dir + sep)) continue; // the request's paths are checked before: nothing leaves the package
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.content);
    }
    const { report } = await runTests({ cwd: dir, paths: ['.'] });
    return {
      tests: report.tests.map(toCoreTest),
      coverage: report.coverage.map((coverage) => ({ ...toCoreProcessCoverage(coverage) })),
      ruleCoverage: report.ruleCoverage.map(toCoreRuleCoverage),
      taskTypeCoverage: report.taskTypeCoverage.map(toCoreTaskTypeCoverage),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function packageKey(files: readonly PackageFile[]): string | undefined {
  const manifest = files.find((file) => file.path === 'package.yaml');
  return manifest === undefined ? undefined : /^key:\s*["']?([a-z0-9][a-z0-9-]*)["']?\s*$/m.exec(manifest.content)?.[1];
}
