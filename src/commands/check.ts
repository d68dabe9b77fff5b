import { Args, Command, Flags } from '@oclif/core';
import type { CheckReport } from '../check/index.js';

export default class Check extends Command {
  static override summary = 'Check packages, an installation or single files: schema first, then the rules.';
  static override description = `Loads the targets with the strict YAML 1.2 loader, validates every document against schema/v1 and reports
one finding per mistake with file:line:col, a code frame and a hint.

Targets: no argument → ./packages/* (or the current directory when it is a package); --install FILE → an
installation and the packages it names; --package DIR|KEY (repeatable) → packages by directory or by key in
./packages; paths → single object, test, lock or plan files, or package directories.

Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage or I/O problems.`;

  static override examples = [
    { description: 'Check every package under ./packages', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'Check an installation and its packages', command: '<%= config.bin %> <%= command.id %> --install packages.yaml' },
    { description: 'Check one package by directory', command: '<%= config.bin %> <%= command.id %> --package packages/claims' },
    { description: 'Check single files (e.g. from a pre-commit hook)', command: '<%= config.bin %> <%= command.id %> processes/claim.yaml tests/claim.test.yaml' },
    { description: 'Annotations for GitHub Actions', command: '<%= config.bin %> <%= command.id %> --format github' },
    { description: 'Machine-readable report', command: '<%= config.bin %> <%= command.id %> --json' },
  ];

  static override strict = false;
  static override enableJsonFlag = true;

  static override args = {
    paths: Args.string({ description: 'Files or package directories to check.', required: false }),
  };

  static override flags = {
    install: Flags.string({ summary: 'Installation file (kind: Installation).', helpValue: 'FILE' }),
    package: Flags.string({ summary: 'Package directory, or a package key found in ./packages. Repeatable.', multiple: true, helpValue: 'DIR|KEY' }),
    format: Flags.string({
      summary: 'Output format.',
      options: ['text', 'json', 'sarif', 'github'],
      default: 'text',
    }),
  };

  async run(): Promise<CheckReport> {
    const { flags, argv } = await this.parse(Check);
    const { check } = await import('../check/index.js');
    const { workspace, report } = await check({
      ...(flags.install ? { install: flags.install } : {}),
      ...(flags.package ? { packages: flags.package } : {}),
      paths: argv as string[],
    });
    if (!report.ok) process.exitCode = 1;
    if (this.jsonEnabled()) return report;
    await this.render(flags.format, report, (file) => workspace.documents().get(file)?.text);
    return report;
  }

  private async render(format: string, report: CheckReport, sourceOf: (file: string) => string | undefined): Promise<void> {
    const { allFindings, renderCheckText } = await import('../report/check.js');
    if (format === 'json') {
      this.log(JSON.stringify(report, null, 2));
    } else if (format === 'sarif') {
      const { renderSarif } = await import('../report/sarif.js');
      this.log(renderSarif(allFindings(report), { version: this.config.version, summaries: new Map() }));
    } else if (format === 'github') {
      const { renderGithub } = await import('../report/github.js');
      const { summaryLine } = await import('../report/check.js');
      const { paintFor } = await import('../report/paint.js');
      const annotations = renderGithub(allFindings(report));
      this.log([annotations, summaryLine(report, paintFor({ isTTY: false }))].filter(Boolean).join('\n'));
    } else {
      const { paintFor } = await import('../report/paint.js');
      this.log(renderCheckText(report, sourceOf, paintFor(process.stdout)));
    }
  }
}
