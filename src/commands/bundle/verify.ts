import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { bundleFileArgs, signatureFlag } from '../../cli/bundle-flags.js';
import { renderObject } from '../../report/bundle.js';
import { verifyBundleFile, type VerifiedFile } from '../../bundle/signature.js';

export default class BundleVerify extends JsonCommand {
  static override summary = "Check a bundle's signature offline, exactly as the control plane does on apply.";
  static override description = 'The key must be trusted: --trust names a data directory (its keys/trusted/), a directory of .pub files or one public key file; default KERNOS_DATA, else ./kernos-data. Refusals carry the control plane code bundle_signature_invalid.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> bundle.json --trust kernos-data',
    '<%= config.bin %> <%= command.id %> bundle.json --sig bundle.sig.json --trust publisher.pub --json',
  ];
  static override enableJsonFlag = true;
  static override args = bundleFileArgs;
  static override flags = {
    ...signatureFlag,
    trust: Flags.string({ summary: 'Trusted keys: a data directory, a directory of .pub files, or a .pub file.' }),
  };

  async run(): Promise<VerifiedFile> {
    const { args, flags } = await this.parse(BundleVerify);
    const verified = verifyBundleFile({ file: args.file, ...(flags.sig ? { sig: flags.sig } : {}), ...(flags.trust ? { trust: flags.trust } : {}) });
    if (!this.jsonEnabled()) this.log(renderObject({ ...verified }));
    return verified;
  }
}
