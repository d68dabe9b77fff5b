import { readFileSync } from 'node:fs';
import { Args, Command, Flags } from '@oclif/core';
import type { CodeInfo } from '../check/catalog.js';
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
    { description: 'Every code check can report, with its severity', command: '<%= config.bin %> <%= command.id %> --list-rules' },
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
    'list-rules': Flags.boolean({ summary: 'List every finding code with its severity and meaning, and exit.' }),
  };

  async run(): Promise<CheckReport | { codes: CodeInfo[] }> {
    const { flags, argv } = await this.parse(Check);
    if (flags['list-rules']) return this.listRules();
    const { check } = await import('../check/index.js');
    const { workspace, report } = await check({
      ...(flags.install ? { install: flags.install } : {}),
      ...(flags.package ? { packages: flags.package } : {}),
      paths: argv as string[],
    });
    process.exitCode = exitStatus(report);
    if (this.jsonEnabled()) return report;
    const documents = workspace.documents();
    await this.render(flags.format, report, (file) => documents.get(file)?.text ?? readText(file));
    return report;
  }

  private async listRules(): Promise<{ codes: CodeInfo[] }> {
    const { codeCatalog } = await import('../check/catalog.js');
    const codes = codeCatalog();
    if (!this.jsonEnabled()) {
      const width = Math.max(...codes.map((c) => c.code.length));
      for (const info of codes) this.log(`${info.code.padEnd(width)}  ${info.severity.padEnd(13)}  ${info.summary}`);
    }
    return { codes };
  }

  private async render(format: string, report: CheckReport, sourceOf: (file: string) => string | undefined): Promise<void> {
    const { allFindings, renderCheckText } = await import('../report/check.js');
    if (format === 'json') {
      this.log(JSON.stringify(report, null, 2));
    } else if (format === 'sarif') {
      const { renderSarif } = await import('../report/sarif.js');
      const { codeCatalog } = await import('../check/catalog.js');
      const summaries = new Map(codeCatalog().map((info) => [info.code, info.summary]));
      this.log(renderSarif(allFindings(report), { version: this.config.version, summaries }));
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

/** 0 no errors, 1 errors in what was read, 2 when a file could not be read at all (I/O). */
function exitStatus(report: CheckReport): number {
  if (report.errors.some((finding) => finding.code === 'read_failed')) return 2;
  return report.ok ? 0 : 1;
}

/** The text of a file that did not load as a document (not YAML, say), for its code frame. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
