import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { dataDirectory, trustKey } from '../../bundle/keys.js';
import { renderObject } from '../../report/bundle.js';

export default class KeysTrust extends JsonCommand {
  static override summary = "Trust a publisher key: writes it into the control plane's trust store, <data>/keys/trusted/<key_id>.pub.";
  static override description = 'Offline, as kernos keys trust: the control plane re-reads the directory on every signature check, so no restart is needed. The key file may be kernos JSON, SPKI PEM, or the raw key in hex or base64.';
  static override examples = ['<%= config.bin %> <%= command.id %> publisher.pub --data kernos-data', '<%= config.bin %> <%= command.id %> publisher.pub --data .package-sdk/core --json'];
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ required: true, description: 'Public key file.' }) };
  static override flags = { data: Flags.string({ summary: 'Data directory of the control plane (default KERNOS_DATA, else ./kernos-data).' }) };

  async run(): Promise<{ key_id: string; trusted_file: string }> {
    const { args, flags } = await this.parse(KeysTrust);
    const trusted = trustKey(args.file, dataDirectory(flags.data));
    if (!this.jsonEnabled()) this.log(renderObject(trusted));
    return trusted;
  }
}
