import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { PackageDescription } from '../docs/describe.js';
import { prose } from '../cli/help-text.js';

export default class Describe extends JsonCommand {
  static override summary = 'What an installation of a package needs: variables, settings, ontologies, requires, engines, agents.';
  static override description = prose`Reads the package in PATH and lists what installing it asks of an environment: installation variables
(kind, required, default, example), settings, ontologies, required packages, engines, and its agents with
the node labels and secrets their placement needs. --env-example prints a .env template instead.`;

  static override examples = [
    { description: 'Needs of the package in the current directory', command: '<%= config.bin %> <%= command.id %> .' },
    { description: 'A .env template for an installation', command: '<%= config.bin %> <%= command.id %> packages/claims --env-example > claims.env' },
    { description: 'As JSON', command: '<%= config.bin %> <%= command.id %> packages/claims --json' },
  ];

  static override enableJsonFlag = true;

  static override args = {
    path: Args.string({ description: 'Package directory.', default: '.' }),
  };

  static override flags = {
    'env-example': Flags.boolean({ summary: 'Print a .env template of the installation variables.' }),
  };

  async run(): Promise<PackageDescription> {
    const { args, flags } = await this.parse(Describe);
    const { describePackage, envExample, renderDescription } = await import('../docs/describe.js');
    const description = await describePackage(args.path);
    if (!this.jsonEnabled()) this.log(flags['env-example'] ? envExample(description).trimEnd() : renderDescription(description));
    return description;
  }
}
