/**
 * node's crypto module, loaded on first use: loading it is ~3 ms of a process's start (fifteen modules of node's
 * own), and a check without the index — a package in CI, `check --no-cache` — never hashes or names a file.
 */
import { createRequire } from 'node:module';

type Crypto = typeof import('node:crypto');

let crypto: Crypto | undefined;

export function nodeCrypto(): Crypto {
  return (crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto);
}
