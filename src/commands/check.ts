import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { CHECK_FLAGS, FORMATS, runCheckRequest, type CheckOutcome, type CheckRequest } from '../cli/check.js';
import { prose } from '../cli/help-text.js';

export default class Check extends JsonCommand {
  static override summary = 'Check packages, an installation or single files: schema first, then the rules.';
  static override description = prose`Loads the targets with the strict YAML 1.2 loader, validates every document against schema/v1 and reports
one finding per mistake with file:line:col, a code frame and a hint.

Targets:
- no argument → ./packages/* (or the current directory when it is a package);
- --install FILE → an installation and the packages it names;
- --package DIR|KEY (repeatable) → packages by directory or by key in ./packages;
- paths → single object, test, lock or plan files, or package directories.

--server URL|local also sends each package to the core's POST /api/v1/packages:test?checkOnly=true (as plan sends
it: variables replaced, no knowledge packs) and merges its problems into the report; each finding says whether
package-sdk, the core, or both reported it. --schema-only keeps only what loading and the format schema find.

Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage or I/O problems.`;

  static override examples = [
    { description: 'Check every package under ./packages', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'Check an installation and its packages', command: '<%= config.bin %> <%= command.id %> --install packages.yaml' },
    { description: 'Check one package by directory', command: '<%= config.bin %> <%= command.id %> --package packages/claims' },
    { description: 'Check single files (e.g. from a pre-commit hook)', command: '<%= config.bin %> <%= command.id %> processes/claim.yaml tests/claim.test.yaml' },
    { description: 'Annotations for GitHub Actions', command: '<%= config.bin %> <%= command.id %> --format github' },
    { description: 'Machine-readable report', command: '<%= config.bin %> <%= command.id %> --json' },
    { description: 'Every code of check, lock, plan and apply, with its severity', command: '<%= config.bin %> <%= command.id %> --list-rules' },
    { description: "A pre-commit hook's check, answered by the working directory's resident checker (started now when none runs)", command: '<%= config.bin %> <%= command.id %> --resident --package packages/claims' },
    { description: 'A check in this process: no resident checker asked, none started', command: '<%= config.bin %> <%= command.id %> --no-resident' },
    { description: "The core's verdict too, findings of both in one report", command: '<%= config.bin %> <%= command.id %> --package packages/claims --server https://cp.example.com --env prod.env' },
  ];

  static override strict = false;
  static override enableJsonFlag = true;

  static override args = {
    paths: Args.string({ description: 'Files or package directories to check.', required: false }),
  };

  static override flags = {
    install: Flags.string(CHECK_FLAGS.install),
    package: Flags.string({ ...CHECK_FLAGS.package, multiple: true }),
    format: Flags.option({ ...CHECK_FLAGS.format, options: FORMATS })(),
    'list-rules': Flags.boolean(CHECK_FLAGS.listRules),
    cache: Flags.boolean({ ...CHECK_FLAGS.cache, default: true, allowNo: true }),
    'schema-only': Flags.boolean(CHECK_FLAGS.schemaOnly),
    server: Flags.string(CHECK_FLAGS.server),
    env: Flags.string({ ...CHECK_FLAGS.env, dependsOn: ['server'] }),
    workspace: Flags.string({ ...CHECK_FLAGS.workspace, dependsOn: ['server'] }),
    // bin/run.js asks the resident checker before this command loads; reaching here, this process checks.
    resident: Flags.boolean({ ...CHECK_FLAGS.resident, allowNo: true }),
  };

  async run(): Promise<CheckOutcome['result']> {
    const { flags, argv } = await this.parse(Check);
    const request: CheckRequest = {
      ...(flags.install ? { install: flags.install } : {}),
      ...(flags.package ? { packages: flags.package } : {}),
      paths: argv as string[],
      format: flags.format,
      json: this.jsonEnabled(),
      listRules: flags['list-rules'],
      cache: flags.cache,
      schemaOnly: flags['schema-only'],
    };
    const outcome = flags.server === undefined
      ? await runCheckRequest(request, this.config.version)
      : await (await import('../cli/check-server.js')).runServerCheck({
        ...request, server: flags.server, ...(flags.env ? { env: flags.env } : {}), ...(flags.workspace ? { workspace: flags.workspace } : {}),
      }, this.config.version);
    process.exitCode = outcome.exitCode;
    if (outcome.output !== undefined) this.log(outcome.output);
    return outcome.result;
  }
}
