/**
 * The engine behind the local core's `POST /api/v1/packages:test`: the request's files become a package
 * directory in a temporary folder, checked and tested as `package-sdk test` would — only the tests the request
 * names (a named file that is not a test is `unknown_test`) — and the answer takes the core's shape: `status`
 * (`invalid` when a problem is an error and no test ran, else `failed` or `passed`), `checkOnly`, the
 * `tests`, the `coverage` of processes, rules and task types, the `problems`, `durationMs`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { Reply } from './route.js';
import type { PackageTestRequest } from './route.js';
import { CoreError } from './errors.js';
import { check } from '../check/index.js';
import { runTests } from '../sandbox/index.js';
import { toCoreProcessCoverage, toCoreRuleCoverage, toCoreTaskTypeCoverage, toCoreTest } from '../sandbox/core-shape.js';
import type { Finding } from '../model/finding.js';

export async function testPackage(request: PackageTestRequest): Promise<Reply> {
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'package-sdk-test-'));
  // The directory is named by the package key, as a package checked out of git would be.
  const dir = join(root, packageKey(request) ?? 'package');
  try {
    for (const file of request.package.files) {
      const target = resolve(dir, file.path);
      if (!target.startsWith(dir + sep)) throw new CoreError(422, 'validation_error', `file path '${file.path}' leaves the package`, { errors: [{ path: '/package/files', message: 'path outside the package' }] });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.content);
    }
    const durationMs = () => Math.round(performance.now() - started);
    if (request.checkOnly) {
      const { report } = await check({ cwd: dir, paths: ['.'] });
      const problems = [...report.errors, ...report.warnings].map(problemOf);
      return { body: { status: report.ok ? 'passed' : 'invalid', checkOnly: true, problems, tests: [], coverage: [], ruleCoverage: [], taskTypeCoverage: [], durationMs: durationMs() } };
    }
    const wanted = request.tests?.map((path) => path.replace(/^\.\//, ''));
    const { report } = await runTests({ cwd: dir, paths: ['.'], ...(wanted !== undefined ? { files: wanted } : {}) });
    const known = new Set(report.tests.map((test) => test.file));
    const unknown = (wanted ?? []).flatMap((path, index) => (known.has(path) ? [] : [unknownTest(path, index)]));
    const problems = [...report.problems.map(problemOf), ...unknown];
    const invalid = problems.some((problem) => problem.severity === 'error');
    return {
      body: {
        status: invalid ? 'invalid' : report.tests.every((t) => t.status === 'passed') ? 'passed' : 'failed',
        checkOnly: false,
        problems,
        tests: invalid ? [] : report.tests.map(toCoreTest),
        coverage: invalid ? [] : report.coverage.map(toCoreProcessCoverage),
        ruleCoverage: invalid ? [] : report.ruleCoverage.map(toCoreRuleCoverage),
        taskTypeCoverage: invalid ? [] : report.taskTypeCoverage.map(toCoreTaskTypeCoverage),
        durationMs: durationMs(),
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function packageKey(request: PackageTestRequest): string | undefined {
  const manifest = request.package.files.find((file) => file.path === 'package.yaml');
  const key = manifest === undefined ? undefined : /^key:\s*["']?([a-z0-9][a-z0-9-]*)["']?\s*$/m.exec(manifest.content)?.[1];
  return key;
}

/** A file the request names as a test that is none of the package's tests. */
function unknownTest(path: string, index: number) {
  return { code: 'unknown_test', severity: 'error' as const, path: `/tests/${index}`, file: null, line: null, message: `'${path}' is not a test of the package (tests/*.test.yaml)`, hint: null };
}

function problemOf(finding: Finding) {
  return { code: finding.code, severity: finding.severity, path: finding.path, file: finding.file, line: finding.line, message: finding.message, hint: finding.hint ?? null };
}
