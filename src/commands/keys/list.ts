import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { base64url, dataDirectory, readTrustStore } from '../../bundle/keys.js';
import { Refusal } from '../../fs/refusal.js';
import { renderTable } from '../../report/bundle.js';
import { prose } from '../../cli/help-text.js';

interface KeyListing {
  data: string;
  keys: { key_id: string; public_key: string; file: string }[];
  skipped: { file: string; reason: string }[];
}

export default class KeysList extends JsonCommand {
  static override summary = 'List the trusted publisher keys of a data directory (<data>/keys/trusted/*.pub).';
  static override description = prose`The keys a control plane takes signed bundles from: each .pub file of <data>/keys/trusted with its key id
and public key. A file that is not a publisher key is listed as skipped, with the reason.`;
  static override examples = ['<%= config.bin %> <%= command.id %> --data kernos-data', '<%= config.bin %> <%= command.id %> --json'];
  static override enableJsonFlag = true;
  static override flags = { data: Flags.string({ summary: 'Data directory of the control plane (default KERNOS_DATA, else ./kernos-data).' }) };

  async run(): Promise<KeyListing> {
    const { flags } = await this.parse(KeysList);
    const data = dataDirectory(flags.data);
    if (!existsSync(data)) {
      throw new Refusal('data_dir_missing', `no data directory ${data}`, {
        exitCode: 2, hint: 'name it with --data (or KERNOS_DATA), or trust a key first: package-sdk keys trust FILE --data DIR',
      });
    }
    const store = readTrustStore(data);
    const listing = { data, keys: store.keys.map((k) => ({ key_id: k.keyId, public_key: base64url(k.publicKey), file: k.file })), skipped: store.skipped };
    if (!this.jsonEnabled()) {
      this.log(renderTable(listing.keys, ['key_id', 'public_key', 'file']));
      for (const s of listing.skipped) this.warn(`skipped ${s.file}: ${s.reason}`);
    }
    return listing;
  }
}
