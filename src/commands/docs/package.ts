import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import type { PackageDocsResult } from '../../docs/package-readme.js';
import { prose } from '../../cli/help-text.js';

export default class DocsPackage extends JsonCommand {
  static override summary = 'Generated README sections of a package: objects, variables, settings, requirements, agents, and a Mermaid diagram of each process.';
  static override description = prose`The sections live between <!-- package-sdk:docs --> and <!-- /package-sdk:docs --> in README.md; the rest
of the README is yours. A Mermaid diagram of each process follows in a block of its own, between
<!-- package-sdk:processes --> and <!-- /package-sdk:processes -->, which GitHub and GitLab draw.
Without a flag the sections are printed; --write updates README.md; --check exits 1
when README.md is stale.`;

  static override examples = [
    { description: 'Print the sections', command: '<%= config.bin %> <%= command.id %> packages/claims' },
    { description: 'Update README.md', command: '<%= config.bin %> <%= command.id %> . --write' },
    { description: 'Fail in CI when README.md is stale', command: '<%= config.bin %> <%= command.id %> . --check' },
  ];

  static override enableJsonFlag = true;

  static override args = {
    dir: Args.string({ description: 'Package directory.', default: '.' }),
  };

  static override flags = {
    write: Flags.boolean({ summary: 'Update README.md.', exclusive: ['check'] }),
    check: Flags.boolean({ summary: 'Exit 1 when README.md is stale.', exclusive: ['write'] }),
  };

  async run(): Promise<PackageDocsResult> {
    const { args, flags } = await this.parse(DocsPackage);
    const { packageDocs } = await import('../../docs/package-readme.js');
    const result = await packageDocs(args.dir, { write: flags.write });
    if (flags.check && !result.fresh) process.exitCode = 1;
    if (!this.jsonEnabled()) {
      if (flags.write) this.log(`${result.written ? 'updated' : 'unchanged'} ${result.readme}`);
      else if (flags.check) this.log(result.fresh ? `${result.readme} is up to date` : `${result.readme} is stale: run package-sdk docs package ${args.dir} --write`);
      else this.log([result.sections, result.diagrams].filter(Boolean).join('\n\n'));
    }
    return result;
  }
}
