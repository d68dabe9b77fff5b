/**
 * The one hash of the project: SHA-256 (Node's own: a hash in JavaScript runs interpreted in a short process, and
 * a plan of a thousand objects spent more on hashing its document than on writing it), as lowercase hex and as
 * `sha256:` digests of canonical JSON.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, compactJson } from './canonical.js';

/** Lowercase hex SHA-256 of text (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256:` + hex of the package-sdk canonical JSON of a value (the plan's and the lock's hashes). */
export function digest(value: unknown, floats?: ReadonlySet<string>): string {
  return digestOfText(canonicalJson(value, floats));
}

/** `sha256:` + hex of the local core's compact form of a value: the core's own hashes (see `compactJson`). */
export function coreDigest(value: unknown): string {
  return digestOfText(compactJson(value));
}

/** `sha256:` + hex of a text (as UTF-8). */
export function digestOfText(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}
