/**
 * The engine behind the local core's `POST /api/v1/packages:test`: the request's files become a package
 * directory in a temporary folder, checked and tested as `package-sdk test` would, and the answer takes the
 * core's shape (`status`, `tests`, `coverage`, `ruleCoverage`, `taskTypeCoverage`, `problems`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { Reply } from './route.js';
import type { PackageTestRequest } from './route.js';
import { CoreError } from './errors.js';
import { check } from '../check/index.js';
import { runTests } from '../sandbox/index.js';
import type { Finding } from '../model/finding.js';

export async function testPackage(request: PackageTestRequest): Promise<Reply> {
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
    if (request.checkOnly) {
      const { report } = await check({ cwd: dir, paths: ['.'] });
      const problems = [...report.errors, ...report.warnings].map(problemOf);
      return { body: { status: report.ok ? 'passed' : 'failed', tests: [], coverage: [], ruleCoverage: [], taskTypeCoverage: [], problems } };
    }
    const wanted = request.tests === undefined ? undefined : new Set(request.tests.map((path) => path.replace(/^\.\//, '')));
    const { report } = await runTests({ cwd: dir, paths: ['.'] });
    const tests = report.tests
      .filter((test) => wanted === undefined || wanted.has(test.file))
      .map(({ package: _pkg, ...test }) => test);
    return {
      body: {
        status: report.problems.length === 0 && tests.every((t) => t.status === 'passed') ? 'passed' : 'failed',
        tests,
        coverage: report.coverage.map(({ package: _pkg, ...coverage }) => coverage),
        ruleCoverage: [],
        taskTypeCoverage: [],
        problems: report.problems.map(problemOf),
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

function problemOf(finding: Finding) {
  return { code: finding.code, severity: finding.severity, path: finding.path, file: finding.file, line: finding.line, message: finding.message, hint: finding.hint ?? null };
}
