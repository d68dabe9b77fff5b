/**
 * `test --server URL|local`: each package goes to `POST /api/v1/packages:test` and the core runs the scenarios
 * (the local core runs them with this project's engine). The package is sent as `plan` sends it — its YAML and
 * JSON files without dot paths and KnowledgePack files (the core does not know that kind), `${VAR}` put in from
 * the package's defaults and the environment — and only the tests the targets select are named.
 */
import { relative, resolve, sep } from 'node:path';
import { withCore } from '../client/connect.js';
import { loadTargets } from '../load/targets.js';
import type { Finding } from '../model/finding.js';
import type { Package } from '../model/package.js';
import { packageFiles } from '../plan/core-section.js';
import { declaredValues } from '../plan/variables.js';
import { fromCoreProcessCoverage, fromCoreRuleCoverage, fromCoreTaskTypeCoverage, fromCoreTest } from './core-shape.js';
import { NoTestSelected, selected, type TestOptions, type TestReport } from './index.js';
import type { LocalCoreStarter } from '../contract/local-core.js';
import type { PackageProblem, PackageTestStatus } from '../contract/packages.js';
import { isRecord } from '../json/guards.js';

export interface PackageTestAnswer {
  status: PackageTestStatus;
  tests: Record<string, unknown>[];
  coverage: Record<string, unknown>[];
  ruleCoverage?: Record<string, unknown>[];
  taskTypeCoverage?: Record<string, unknown>[];
  problems: PackageProblem[];
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
  const env = options.env ?? process.env;
  await withCore(options.server, { env, ...(options.localCore ? { localCore: options.localCore } : {}) }, async ({ client }) => {
    for (const { pkg, chosen } of work) {
      if (chosen.length === 0) continue;
      const files = await packageFiles(pkg, valuesOf(pkg, env));
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

/**
 * The values `${NAME}` takes: the package's defaults overlaid by the environment. A name without a value
 * stays `${NAME}`, as the core leaves it (a rule or task-type test takes it from the manifest defaults).
 */
function valuesOf(pkg: Package, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const values: Record<string, string> = declaredValues(pkg);
  for (const [name, value] of Object.entries(env)) if (value !== undefined) values[name] = value;
  return new Proxy(values, { get: (known, name) => (typeof name === 'string' ? known[name] ?? `\${${name}}` : undefined) });
}
