import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { TestReport } from '../sandbox/index.js';
import { prose } from '../cli/help-text.js';

export default class Test extends JsonCommand {
  static override summary = 'Run package scenarios (tests/*.test.yaml) in the local process engine, or on a core.';
  static override description = prose`Checks the targets first: a package with check errors runs no scenarios. Then each scenario runs in
virtual time with its mocks — processes, work rules and task types — as the core's sandbox runs it: a
failed expect is reported (file:line:col, expected and actual) and the scenario goes on; a step that cannot
be done stops it. Coverage is reported per process (elements, transitions, decision rows, handlers), work
rule and task type.

Targets as for check: no argument → ./packages/*; --install FILE; --package DIR|KEY; paths (package
directories, or a test file with the loose objects it needs). --server sends each package to
POST /api/v1/packages:test of a core instead ("local" starts the embedded one).

Exit status: 0 all passed, 1 a failure or a package with check errors, 2 usage or I/O problems (and a
--test that names no test).`;

  static override examples = [
    { description: 'Run every scenario of ./packages/*', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'One package, one scenario by name', command: '<%= config.bin %> <%= command.id %> --package packages/claims --test "a small refund is reviewed, replied and closed without an approval"' },
    { description: 'JUnit XML for CI', command: '<%= config.bin %> <%= command.id %> --install packages.yaml --junit test-results.xml' },
    { description: 'On the embedded core, machine-readable', command: '<%= config.bin %> <%= command.id %> --package packages/claims --server local --json' },
  ];

  static override strict = false;
  static override enableJsonFlag = true;

  static override args = {
    paths: Args.string({ description: 'Package directories or test files.', required: false }),
  };

  static override flags = {
    install: Flags.string({ summary: 'Installation file: test the packages it names.' }),
    package: Flags.string({ summary: 'Package directory or key in ./packages (repeatable).', multiple: true }),
    test: Flags.string({ summary: 'Only the test with this name or file name.' }),
    server: Flags.string({ summary: 'Core URL to run the scenarios on (POST /packages:test), or "local" for an embedded core.' }),
    junit: Flags.string({ summary: 'Also write a JUnit XML report to this file.' }),
    cache: Flags.boolean({ summary: 'Reuse what earlier runs of check and test learnt of unchanged files (in $PACKAGE_SDK_CACHE/check); --no-cache parses everything afresh.', default: true, allowNo: true }),
    html: Flags.string({ summary: 'Also write a page of the run — scenarios, failures, coverage drawn on each process — to this file.', helpValue: 'FILE' }),
  };

  async run(): Promise<TestReport> {
    const { flags, argv } = await this.parse(Test);
    const options = {
      ...(flags.install ? { install: flags.install } : {}),
      ...(flags.package ? { packages: flags.package } : {}),
      ...(flags.test ? { test: flags.test } : {}),
      paths: argv as string[],
    };
    const { runTestCommand } = await import('../cli/test.js');
    const outcome = await runTestCommand({ ...options, cache: flags.cache, ...(flags.server ? { server: flags.server } : {}), ...(flags.junit ? { junit: flags.junit } : {}) });
    if (flags.html) await (await import('../cli/html-pages.js')).writeTestPage(flags.html, outcome.report, options);
    if (!this.jsonEnabled()) this.log(outcome.text());
    process.exitCode = outcome.exitCode;
    return outcome.report;
  }
}
