/**
 * `--server URL|local` of plan and apply: a client of a real core (token `CP_TOKEN`), or of the embedded
 * local core with its data in `.package-sdk/core`. The embedded core listens on a new port each run, so a
 * plan built against it records the fixed address `http://localhost/local`, and `apply --server local`
 * matches it.
 */
import { noLocalCore, type LocalCoreStarter } from '../contract/local-core.js';
import type { Seed } from '../contract/seed.js';
import { CoreClient, serverBase, staticToken } from './client.js';

export const LOCAL_SERVER = 'local';
/** What a plan built with `--server local` records as its `server`. */
export const LOCAL_SERVER_ADDRESS = 'http://localhost/local';

export interface CoreConnection {
  /** The address the plan records. */
  server: string;
  client: CoreClient;
  /** The notification service: `NOTIFICATION_SERVICE_URL` + `NOTIFY_TOKEN`, or the embedded core's own routes. */
  notifications?: CoreClient;
}

export interface ConnectOptions {
  /** Where the values of CP_TOKEN, NOTIFICATION_SERVICE_URL and NOTIFY_TOKEN come from. */
  env: Readonly<Record<string, string | undefined>>;
  /** `--server local`: its data directory (default `.package-sdk/core`). */
  localDataDir?: string;
  /** `--server local`: what the sandbox must hold (the objects the variables name). */
  localSeed?: Seed;
  /** `--server local`: how the embedded core starts. */
  localCore?: LocalCoreStarter;
}

export class MissingTokenError extends Error {
  readonly code = 'token_missing';
}

/** The stand address as a plan records it: `local` → `http://localhost/local`, else checked and without a trailing `/`. */
export function recordedServer(server: string): string {
  return server === LOCAL_SERVER ? LOCAL_SERVER_ADDRESS : serverBase(server);
}

/** Runs `use` with a connection, and stops the embedded core afterwards when one was started. */
export async function withCore<T>(server: string, options: ConnectOptions, use: (connection: CoreConnection) => Promise<T>): Promise<T> {
  const notifyUrl = options.env.NOTIFICATION_SERVICE_URL;
  const notifyToken = staticToken(options.env.NOTIFY_TOKEN);
  if (server !== LOCAL_SERVER && server !== LOCAL_SERVER_ADDRESS) {
    const base = serverBase(server);
    const token = options.env.CP_TOKEN;
    if (!token) throw new MissingTokenError(`no credentials for ${base}: set CP_TOKEN (a bearer token of the core) in the environment or the --env file`);
    return use({
      server: base,
      client: new CoreClient(base, { token: staticToken(token) }),
      ...(notifyUrl ? { notifications: new CoreClient(serverBase(notifyUrl), { token: notifyToken }) } : {}),
    });
  }
  if (options.localCore === undefined) throw noLocalCore();
  const core = await options.localCore({
    ...(options.localDataDir ? { dataDir: options.localDataDir } : {}),
    ...(options.localSeed ? { seed: options.localSeed } : {}),
  });
  try {
    const client = new CoreClient(core.url, { token: staticToken(core.token) });
    const notifications = notifyUrl ? new CoreClient(serverBase(notifyUrl), { token: notifyToken }) : client;
    return await use({ server: LOCAL_SERVER_ADDRESS, client, notifications });
  } finally {
    await core.stop();
  }
}
