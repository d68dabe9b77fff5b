import { Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { prose } from '../cli/help-text.js';

export default class Lsp extends JsonCommand {
  static override summary = 'Serve the Language Server Protocol over stdio: check\'s diagnostics, completion, hover, references and rename in an editor.';
  static override description = prose`Diagnostics are check's — the same codes, places and hints — on every open and changed buffer, unsaved
buffers checked as they stand; completion of kinds, fields and the keys of the objects a field names; hover with
the reference's description of a field or a summary of the object a value names; go to definition, find
references and rename of object keys (rename is edit rename's); quick fixes for "did you mean" and for the
suppression comment. The workspace is the client's root folder (docs/editor.md).

stdout carries the protocol (messages framed by Content-Length), with or without --json. The server stops when
the client sends exit, or when stdin ends.`;

  static override examples = ['<%= config.bin %> <%= command.id %> --stdio'];

  static override enableJsonFlag = true;
  static override flags = {
    stdio: Flags.boolean({ summary: 'Talk over stdin and stdout (the only transport; editors pass it).', default: true }),
  };

  /** stdout carries the protocol: nothing else is printed on it, under --json neither. */
  protected override logJson(): void {}

  async run(): Promise<void> {
    await this.parse(Lsp);
    const [{ serveStdio }, { ParseCache, useParseCache }, { cacheRoot }] = await Promise.all([
      import('../lsp/server.js'), import('../load/parse-cache.js'), import('../sources/cache.js'),
    ]);
    useParseCache(new ParseCache(`${cacheRoot()}/check`));
    serveStdio({ version: this.config.version });
  }
}
