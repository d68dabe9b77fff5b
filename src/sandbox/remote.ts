/**
 * `test --server URL|local`: each package's files go to `POST /api/v1/packages:test` and the core runs the
 * scenarios (the local core runs them with this project's engine). Only the tests the targets select are
 * named in the request; the answer's tests are reported under their files here, with the package's key.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { withCore } from '../client/connect.js';
import { loadTargets } from '../load/targets.js';
import type { Finding } from '../model/finding.js';
import { fromCoreProcessCoverage, fromCoreRuleCoverage, fromCoreTaskTypeCoverage, fromCoreTest } from './core-shape.js';
import { NoTestSelected, selected, type TestOptions, type TestReport } from './index.js';
import type { LocalCoreStarter } from '../contract/local-core.js';
import { isRecord } from '../json/guards.js';

export interface PackageTestAnswer {
  status: string;
  tests: Record<string, unknown>[];
  coverage: Record<string, unknown>[];
  ruleCoverage?: Record<string, unknown>[];
  taskTypeCoverage?: Record<string, unknown>[];
  problems: (Omit<Finding, 'line' | 'column' | 'file' | 'hint'> & { file: string | null; line: number | null; hint: string | null })[];
}

export interface ServerTestOptions extends TestOptions {
  server: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** How `--server local` starts the embedded core (the commands give the local core of src/server/). */
  localCore?: LocalCoreStarter;
}

export async function runTestsOnServer(options: ServerTestOptions): Promise<TestReport> {
  const workspace = await loadTargets(options);
  const report: TestReport = { ok: true, passed: 0, failed: 0, errors: 0, tests: [], coverage: [], ruleCoverage: [], taskTypeCoverage: [], problems: [...workspace.findings] };
  const work = workspace.packages.map((pkg) => ({ pkg, chosen: pkg.tests.filter((test) => selected(options.test, test.document.value, test.file)) }));
  if (options.test !== undefined && work.every(({ chosen }) => chosen.length === 0)) {
    throw new NoTestSelected(options.test, work.flatMap(({ pkg }) => pkg.tests.map((test) => (isRecord(test.document.value) && typeof test.document.value.name === 'string' ? test.document.value.name : test.file))));
  }
  await withCore(options.server, { env: options.env ?? process.env, ...(options.localCore ? { localCore: options.localCore } : {}) }, async ({ client }) => {
    for (const { pkg, chosen } of work) {
      if (chosen.length === 0) continue;
      const files = await packageFiles(pkg.dir);
      const inPackage = new Map(chosen.map((test) => [relative(pkg.dir, resolve(options.cwd ?? process.cwd(), test.file)).split(sep).join('/'), test.file]));
      const answer = await client.send<PackageTestAnswer>('POST', '/api/v1/packages:test', { body: { package: { files }, tests: [...inPackage.keys()] } });
      report.tests.push(...answer.tests.map((test) => fromCoreTest(test, pkg.key, inPackage.get(String(test.file)) ?? String(test.file))));
      report.coverage.push(...answer.coverage.map((coverage) => fromCoreProcessCoverage(coverage, pkg.key)));
      report.ruleCoverage.push(...(answer.ruleCoverage ?? []).map((coverage) => fromCoreRuleCoverage(coverage, pkg.key)));
      report.taskTypeCoverage.push(...(answer.taskTypeCoverage ?? []).map((coverage) => fromCoreTaskTypeCoverage(coverage, pkg.key)));
      report.problems.push(...answer.problems.map((p) => ({ ...p, file: p.file ?? pkg.key, line: p.line ?? 1, column: 1, ...(p.hint ? { hint: p.hint } : {}) }) as Finding));
    }
  });
  report.passed = report.tests.filter((t) => t.status === 'passed').length;
  report.failed = report.tests.filter((t) => t.status === 'failed').length;
  report.errors = report.tests.filter((t) => t.status === 'error').length;
  report.ok = report.problems.every((p) => p.severity !== 'error') && report.tests.every((t) => t.status === 'passed');
  return report;
}

/** Every file of a package directory, as the core's `PackageSource` takes them (paths with `/`). */
async function packageFiles(dir: string): Promise<{ path: string; content: string }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: { path: string; content: string }[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (path.startsWith('.git/') || path.split('/').some((part) => part === 'node_modules')) continue;
    files.push({ path, content: await readFile(join(dir, path), 'utf8') });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
