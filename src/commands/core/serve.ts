import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { DEFAULT_CORE_VERSION } from '../../contract/version.js';
import { Refusal } from '../../fs/refusal.js';

/** The one line `core serve --json` prints once the core listens (the token only when it was generated). */
export interface ServeStarted {
  url: string;
  dataDir: string;
  version: string;
  token?: string;
}

export default class CoreServe extends JsonCommand {
  static override summary = 'Serve a local core: the control-plane API that plan, apply, test and bundle use, with state in SQLite.';
  static override description =
    'Runs until interrupted (Ctrl-C, SIGTERM). Every request needs `Authorization: Bearer <token>`. ' +
    'Routes, the admin route for console edits and the seed file format are described in docs/core.md.';

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 8600 --token secret --seed seed.yaml',
    '<%= config.bin %> <%= command.id %> --data /tmp/core --version 0.9.0',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    port: Flags.integer({ min: 0, max: 65535, default: 0, summary: 'Port to listen on (0: a free one).' }),
    host: Flags.string({ default: '127.0.0.1', summary: 'Address to listen on.' }),
    data: Flags.directory({ default: '.package-sdk/core', summary: 'Directory of the state (core.sqlite, keys/).' }),
    token: Flags.string({ env: 'CP_TOKEN', summary: 'Bearer token clients must send (default: CP_TOKEN, else a fresh random one, printed).' }),
    version: Flags.string({ default: DEFAULT_CORE_VERSION, summary: 'Control-plane version reported by /openapi.json.' }),
    seed: Flags.file({ exists: true, summary: 'Workspaces, projects, principals and roles to create (JSON or YAML, see docs/core.md).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CoreServe);
    const { startCoreServer } = await import('../../server/server.js');
    const { readSeed, SeedError } = await import('../../server/seed.js');
    let seed;
    try {
      seed = flags.seed ? readSeed(flags.seed) : undefined;
    } catch (error) {
      if (error instanceof SeedError) throw new Refusal('seed_invalid', error.message, { exitCode: 2 });
      throw error;
    }
    const generated = flags.token === undefined;
    const token = flags.token ?? randomBytes(24).toString('base64url');
    const dataDir = resolve(flags.data);
    let core;
    try {
      core = await startCoreServer({ dataDir, token, version: flags.version, host: flags.host, port: flags.port, ...(seed ? { seed } : {}) });
    } catch (error) {
      if (error instanceof Refusal) throw error; // already says what is missing and how to get it
      throw new Refusal('core_not_started', `cannot start the core: ${(error as Error).message}`, { exitCode: 2 });
    }
    if (this.jsonEnabled()) {
      const started: ServeStarted = { url: core.url, dataDir, version: core.version, ...(generated ? { token } : {}) };
      process.stdout.write(`${JSON.stringify(started)}\n`);
    } else {
      this.log(`core ${core.version} listening on ${core.url} (data ${dataDir})`);
      if (generated) this.log(`token: ${token}`);
      this.log('stop with Ctrl-C');
    }
    await new Promise<void>((done) => {
      const shutdown = () => {
        process.off('SIGINT', shutdown);
        process.off('SIGTERM', shutdown);
        void core.stop().then(done);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    });
    // Under --json the start line stays the only output: a reader of JSON lines gets nothing after it.
    if (!this.jsonEnabled()) this.log('core stopped');
  }
}
