import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { bundleFileArgs } from '../../cli/bundle-flags.js';
import { renderObject } from '../../report/bundle.js';
import { signBundleFile, type SignedFile } from '../../bundle/signature.js';

export default class BundleSign extends JsonCommand {
  static override summary = 'Sign a bundle with a publisher key: ed25519 over its canonical JSON.';
  static override description = 'Writes the signature file kernos reads ({algorithm, key_id, sha256, signature}); by default FILE without .json plus .sig.json. The bundle is validated first unless --no-validate.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> bundle.json --key publisher.key',
    '<%= config.bin %> <%= command.id %> bundle.json --key publisher.key --out signed/bundle.sig.json --json',
  ];
  static override enableJsonFlag = true;
  static override args = bundleFileArgs;
  static override flags = {
    key: Flags.string({ required: true, summary: 'Private key file (kernos JSON, PKCS#8 PEM, or hex / base64 seed).' }),
    out: Flags.string({ summary: 'Signature file to write (default: FILE.sig.json).' }),
    validate: Flags.boolean({ default: true, allowNo: true, summary: 'Validate the bundle before signing.' }),
  };

  async run(): Promise<SignedFile> {
    const { args, flags } = await this.parse(BundleSign);
    const signed = signBundleFile({ file: args.file, key: flags.key, validate: flags.validate, ...(flags.out ? { out: flags.out } : {}) });
    if (!this.jsonEnabled()) this.log(renderObject({ ...signed }));
    return signed;
  }
}
