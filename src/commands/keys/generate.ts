import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { type GeneratedKeyFiles, writeKeyPair } from '../../bundle/keys.js';
import { renderObject } from '../../report/bundle.js';
import { prose } from '../../cli/help-text.js';

export default class KeysGenerate extends JsonCommand {
  static override summary = 'Make a publisher key pair: BASE.key (mode 0600) and BASE.pub, with a key_<ULID> id.';
  static override description = prose`A publisher signs its bundles with BASE.key (bundle sign --key); a control plane takes them once it
trusts BASE.pub (keys trust). The private key is written readable by its owner only (mode 0600): keep it
out of the repository.`;
  static override examples = ['<%= config.bin %> <%= command.id %> --out publisher', '<%= config.bin %> <%= command.id %> --out keys/finance --json'];
  static override enableJsonFlag = true;
  static override flags = { out: Flags.string({ required: true, summary: 'Base name: .key and .pub are appended.' }) };

  async run(): Promise<GeneratedKeyFiles> {
    const { flags } = await this.parse(KeysGenerate);
    const made = writeKeyPair(flags.out);
    if (!this.jsonEnabled()) this.log(renderObject({ ...made }));
    return made;
  }
}
