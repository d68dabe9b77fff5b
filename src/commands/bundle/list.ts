import { JsonCommand } from '../../cli/json-command.js';
import { type BundleListing, listBundles, withServer } from '../../bundle/client.js';
import { serverFlags } from '../../cli/bundle-flags.js';
import { renderTable } from '../../report/bundle.js';
import { localCore } from '../../cli/local-core.js';

export default class BundleList extends JsonCommand {
  static override summary = 'List the bundles the control plane holds (GET /v1/bundles).';
  static override examples = ['<%= config.bin %> <%= command.id %> --server https://cp.example.com', '<%= config.bin %> <%= command.id %> --server local --json'];
  static override enableJsonFlag = true;
  static override flags = { ...serverFlags };

  async run(): Promise<BundleListing[]> {
    const { flags } = await this.parse(BundleList);
    const bundles = await withServer(flags.server, flags.token, listBundles, localCore);
    if (!this.jsonEnabled()) this.log(renderTable(bundles, ['bundle_id', 'name', 'version', 'department', 'workflows', 'created_at']));
    return bundles;
  }
}
