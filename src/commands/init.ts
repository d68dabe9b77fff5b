import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { InitResult } from '../author/init.js';
import { prose } from '../cli/help-text.js';

export default class Init extends JsonCommand {
  static override summary = 'Create a package that passes check and its own scenario.';
  static override description = prose`Writes DIR/package.yaml (with engines), a process with its identity agent and owner role, a task type, a
scenario in tests/ and a README with the generated sections; at the root of the repository DIR is in (the
nearest folder holding .git), a GitHub Actions workflow .github/workflows/<key>.yml and a copy of the
schemas in .schema/v1, which the yaml-language-server modeline of every YAML file points at — commit it, and
editors complete and explain fields after a clone. Never overwrites a file.

--integration adds an observer that turns requests of an outside system into the observations that start the
process: its agent (agents/<key>-observer.yaml, running --image), integration/ (a Python project with the
observer and its test) and integration/Dockerfile.`;

  static override examples = [
    { description: 'A package in ./demo', command: '<%= config.bin %> <%= command.id %> demo' },
    { description: 'With a display name and a license', command: '<%= config.bin %> <%= command.id %> packages/claims --display-name "Customer claims" --license Apache-2.0' },
    { description: 'With an observer and its integration code', command: '<%= config.bin %> <%= command.id %> claims --integration --image registry.example.com/claims/observer:0.1.0' },
  ];

  static override enableJsonFlag = true;

  static override args = {
    dir: Args.string({ description: 'Directory of the new package; its name is the package key.', required: true }),
  };

  static override flags = {
    key: Flags.string({ summary: 'Package key (must equal the directory name).', helpValue: 'KEY' }),
    'display-name': Flags.string({ summary: 'Display name of the package.', helpValue: 'TEXT' }),
    license: Flags.string({ summary: 'SPDX license identifier.', helpValue: 'SPDX' }),
    integration: Flags.boolean({ summary: 'Also an observer that starts the process: its agent, integration/ (Python, with a test) and a Dockerfile.' }),
    image: Flags.string({ summary: "The observer's image (with --integration).", helpValue: 'IMAGE', dependsOn: ['integration'] }),
  };

  async run(): Promise<InitResult> {
    const { args, flags } = await this.parse(Init);
    const { initPackage } = await import('../author/init.js');
    const result = await initPackage({
      dir: args.dir,
      ...(flags.key ? { key: flags.key } : {}),
      ...(flags['display-name'] ? { displayName: flags['display-name'] } : {}),
      ...(flags.license ? { license: flags.license } : {}),
      ...(flags.integration ? { integration: true } : {}), ...(flags.image ? { image: flags.image } : {}),
    });
    if (!this.jsonEnabled()) {
      for (const file of result.created) this.log(`created ${file}`);
      this.log(`\nnext: cd ${args.dir} && ${this.config.bin} check && ${this.config.bin} test`);
    }
    return result;
  }
}
