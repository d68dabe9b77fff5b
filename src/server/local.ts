import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { LocalCore } from '../contract/local-core.js';
import { startCoreServer, type RunningCore } from './server.js';
import type { Seed } from '../contract/seed.js';
import type { PackageTester } from './route.js';

export interface LocalCoreOptions {
  /** Where the state lives; default `.package-sdk/core` under the working directory. */
  dataDir?: string;
  /** Bearer token clients must send; default a fresh random one. */
  token?: string;
  /** `info.version` of /openapi.json; default 0.10.0. */
  version?: string;
  /** The engine that runs the scenarios of `POST /packages:test` (default: the sandbox). */
  packageTester?: PackageTester;
  /** Workspaces, projects, principals and roles to create when missing (docs/core.md, the seed file). */
  seed?: Seed;
}

export const DEFAULT_LOCAL_CORE_DIR = '.package-sdk/core';

/**
 * The embedded core behind `--server local` (plan, apply, test, bundle): a local core on a free loopback
 * port. Stop it when done; its state stays in `dataDir` for the next run.
 */
export async function startLocalCore(options: LocalCoreOptions = {}): Promise<LocalCore> {
  const core: RunningCore = await startCoreServer({
    dataDir: resolve(options.dataDir ?? DEFAULT_LOCAL_CORE_DIR),
    token: options.token ?? randomBytes(24).toString('base64url'),
    ...(options.version ? { version: options.version } : {}),
    ...(options.packageTester ? { packageTester: options.packageTester } : {}),
    ...(options.seed ? { seed: options.seed } : {}),
    host: '127.0.0.1',
    port: 0,
  });
  return { url: core.url, token: core.token, stop: core.stop };
}
