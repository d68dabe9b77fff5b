/**
 * Where package-sdk keeps what outlives a run (git sources, the workspace index of `check`, the resident
 * checkers' sockets): a module of its own, so that the resident checker's client loads nothing else.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PACKAGE_SDK_CACHE) return env.PACKAGE_SDK_CACHE;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'package-sdk');
  return join(homedir(), '.cache', 'package-sdk');
}
