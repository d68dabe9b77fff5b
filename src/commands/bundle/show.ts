import { Args, ux } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { showBundle, withServer } from '../../bundle/client.js';
import { jsonText } from '../../bundle/json-text.js';
import { serverFlags } from '../../cli/bundle-flags.js';
import { renderStoredBundle } from '../../report/bundle.js';
import { localCore } from '../../cli/local-core.js';

export default class BundleShow extends JsonCommand {
  static override summary = 'Show one stored bundle with its signature (GET /v1/bundles/{id}).';
  static override examples = ['<%= config.bin %> <%= command.id %> bnd_01hzx3k9q8m4v6t2r7w5y0c1de --server https://cp.example.com --json'];
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ required: true, description: 'Bundle id (bnd_…).' }) };
  static override flags = { ...serverFlags };

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(BundleShow);
    const bundle = await withServer(flags.server, flags.token, (conn) => showBundle(conn, args.id), localCore);
    if (!this.jsonEnabled()) this.log(renderStoredBundle(bundle, process.stdout.isTTY === true));
    return bundle;
  }

  /** The stored bundle with its numbers as they were signed (`JSON.stringify` would print `7250.0` as `7250`). */
  protected override logJson(json: unknown): void {
    ux.stdout(jsonText(json, 2));
  }
}
