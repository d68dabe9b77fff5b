/** A bundle's canonical bytes and digest as kernos computes them (compat-kernos §2.1). */
import { kernosCanonicalBytes } from '../json/canonical.js';
import { sha256Hex } from '../json/digest.js';
import { parseJson, SERDE_JSON, type ParsedJson } from '../json/parse.js';

/** A bundle's JSON text read as kernos reads it (serde_json); throws `JsonSyntaxError` when it is not JSON. */
export function parseBundleJson(text: string): ParsedJson {
  return parseJson(text, SERDE_JSON);
}

/** Canonical bytes of a bundle's JSON text; throws `JsonSyntaxError` when it is not JSON. */
export function canonicalBundleBytes(text: string): Uint8Array {
  return kernosCanonicalBytes(parseBundleJson(text).value);
}

/** Plain lowercase hex, as kernos prints it (no `sha256:` prefix). */
export function bundleDigest(text: string): string {
  return sha256Hex(canonicalBundleBytes(text));
}
