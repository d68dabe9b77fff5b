import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { WorkflowResult } from '../author/workflow.js';
import { prose } from '../cli/help-text.js';

export default class Workflow extends JsonCommand {
  static override summary = 'Write (or verify) the CI workflow of a repository of packages from what it holds.';
  static override description = prose`Writes .github/workflows/package.yml in DIR: for a package, the workflow init writes; for a repository, check
and test of packages/* and a check of each installation on every push, and on a tag a plan per installation
applied after approval in the environment "production". Run it again when packages or installations are added.

--check writes nothing and exits 1 when the file is not what the layout asks for.

Exit status: 0 written or current, 1 stale (--check) or a refusal, 2 usage or I/O problems.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> . --check',
  ];

  static override enableJsonFlag = true;
  static override args = {
    dir: Args.string({ description: 'The repository (or package) directory.', default: '.' }),
  };

  static override flags = {
    check: Flags.boolean({ summary: 'Verify only: exit 1 when the workflow is stale.' }),
  };

  async run(): Promise<WorkflowResult> {
    const { args, flags } = await this.parse(Workflow);
    const { writeWorkflow } = await import('../author/workflow.js');
    const result = await writeWorkflow({ dir: args.dir, check: flags.check });
    if (flags.check && !result.fresh) process.exitCode = 1;
    if (!this.jsonEnabled()) {
      if (result.fresh) this.log(`${result.file} is current`);
      else if (result.written) this.log(`written ${result.file}`);
      else this.log(`${result.file} is stale: run ${this.config.bin} workflow ${args.dir}`);
    }
    return result;
  }
}
