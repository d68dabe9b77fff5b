import { JsonCommand } from '../../cli/json-command.js';
import { applyBundle, type ApplyResult, withServer } from '../../bundle/client.js';
import { bundleFileArgs, serverFlags, signatureFlag } from '../../cli/bundle-flags.js';
import { localCore } from '../../cli/local-core.js';

export default class BundleApply extends JsonCommand {
  static override summary = 'Send a signed bundle to the control plane (POST /v1/bundles).';
  static override description = 'The control plane checks the signature, then validates; applying the identical bundle again answers 200, a different bundle under the same name@version 409 bundle_version_exists.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> bundle.json --server https://cp.example.com',
    '<%= config.bin %> <%= command.id %> bundle.json --sig bundle.sig.json --server local --json',
  ];
  static override enableJsonFlag = true;
  static override args = bundleFileArgs;
  static override flags = {
    ...signatureFlag,
    ...serverFlags,
  };

  async run(): Promise<ApplyResult> {
    const { args, flags } = await this.parse(BundleApply);
    const result = await withServer(flags.server, flags.token, (conn) => applyBundle({ file: args.file, conn, ...(flags.sig ? { sig: flags.sig } : {}) }), localCore);
    if (!this.jsonEnabled()) {
      this.log(`${result.status === 201 ? 'applied' : 'already applied (identical)'}: ${result.bundle_id} ${result.name}@${result.version}`);
    }
    return result;
  }
}
