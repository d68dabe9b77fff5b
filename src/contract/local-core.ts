/**
 * The embedded core behind `--server local`, as its users (plan, apply, test, bundle) see it: something that
 * starts a core on a loopback port and stops it. The commands provide the local core of src/server/; the
 * library never loads the server itself.
 */
import type { Seed } from './seed.js';

export interface LocalCoreRequest {
  /** Where its state lives; default `.package-sdk/core` under the working directory. */
  dataDir?: string;
  /** The bearer token clients must send; default a fresh random one. */
  token?: string;
  /** Workspaces, projects, principals and roles it must hold. */
  seed?: Seed;
}

export interface LocalCore {
  url: string;
  token: string;
  stop(): Promise<void>;
}

export type LocalCoreStarter = (request: LocalCoreRequest) => Promise<LocalCore>;

/** Why `--server local` cannot be used: the caller gave no way to start the embedded core. */
export function noLocalCore(): Error {
  return new Error('--server local needs the embedded core, and this caller provides none (pass localCore)');
}
