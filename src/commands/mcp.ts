import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { JsonCommand } from '../cli/json-command.js';
import { localCore } from '../cli/local-core.js';
import { prose } from '../cli/help-text.js';

export default class Mcp extends JsonCommand {
  static override summary = 'Serve the Model Context Protocol over stdio: an AI assistant checks, edits, tests and plans packages.';
  static override description = prose`Tools: check, test, describe, edit, plan, apply — each with JSON Schemas for its arguments and its result;
apply only with confirm: true and the planHash of the plan a person approved. Resources: the schema field
reference, the JSON Schemas of schema/v1 and the catalogue of finding codes (docs/mcp.md).

Paths are relative to --root (default PACKAGE_SDK_ROOT, else the working directory) and may not leave it; plan
and apply talk only to the cores of --servers (default PACKAGE_SDK_SERVERS, else "local", the embedded core).

stdout carries the protocol: one JSON-RPC message per line, with or without --json. The server stops when stdin ends.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    'PACKAGE_SDK_ROOT=~/packages PACKAGE_SDK_SERVERS=local,https://cp.example.com <%= config.bin %> <%= command.id %>',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    root: Flags.string({ summary: 'The directory the tools work in.', env: 'PACKAGE_SDK_ROOT', helpValue: 'DIR' }),
    servers: Flags.string({ summary: 'Cores plan and apply may use, comma-separated ("local": the embedded core).', env: 'PACKAGE_SDK_SERVERS', default: 'local', helpValue: 'LIST' }),
  };

  /** stdout carries the protocol: nothing else is printed on it, under --json neither. */
  protected override logJson(): void {}

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp);
    const { serveStdio } = await import('../mcp/server.js');
    await serveStdio({
      root: resolve(flags.root ?? process.cwd()),
      servers: flags.servers.split(',').map((server) => server.trim()).filter(Boolean),
      localCore,
      version: this.config.version,
    });
  }
}
