/** The one hash of the project: SHA-256 (@noble/hashes), as lowercase hex and as `sha256:` digests of canonical JSON. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson, compactJson } from './canonical.js';

/** Lowercase hex SHA-256 of text (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(sha256(bytesOf(data)));
}

/** A SHA-256 fed piece by piece (a package's files, one after the other), read as `sha256:` + hex. */
export function sha256Digester(): { update(data: string | Uint8Array): void; digest(): string } {
  const hasher = sha256.create();
  return {
    update: (data) => void hasher.update(bytesOf(data)),
    digest: () => `sha256:${bytesToHex(hasher.digest())}`,
  };
}

function bytesOf(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? utf8ToBytes(data) : data;
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
