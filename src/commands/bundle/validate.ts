import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { paintFor } from '../../report/paint.js';
import { renderValidation } from '../../report/bundle.js';
import { validateBundleFiles } from '../../bundle/validate.js';
import type { BundleError, FileValidation } from '../../bundle/validate.js';

export default class BundleValidate extends JsonCommand {
  static override summary = 'Check kernos bundles offline against every rule of the control plane, reporting all errors at once.';
  static override description = 'Errors are the rules POST /v1/bundles applies (the first one listed is the one the control plane reports); warnings are stricter checks that never make a bundle invalid. Exit 0 valid, 1 invalid, 2 unreadable or not JSON.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> bundle.json',
    '<%= config.bin %> <%= command.id %> bundles/*.json --json',
    '<%= config.bin %> <%= command.id %> bundle.json --first',
  ];
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { file: Args.string({ required: true, description: 'Bundle files (kernos.bundle/1 JSON).' }) };
  static override flags = {
    first: Flags.boolean({ summary: "Report only the control plane's first error of each file, at its path and in its format (error: bundle is invalid at <path>: <message>)." }),
  };

  async run(): Promise<{ ok: boolean; errors: BundleError[]; warnings: BundleError[]; bundles: FileValidation[] }> {
    const { argv, flags } = await this.parse(BundleValidate);
    const { unreadable, ...result } = validateBundleFiles(argv as string[], { first: flags.first });
    process.exitCode = unreadable ? 2 : result.ok ? 0 : 1;
    if (!this.jsonEnabled()) this.log(renderValidation({ unreadable, ...result }, paintFor(process.stdout), flags.first));
    return result;
  }
}
