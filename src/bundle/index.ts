/**
 * The bundle library: what commands, the local core's `/v1/bundles` routes and tests use.
 * Digests are plain lowercase hex, as kernos prints them in signature files and the bundle store.
 */
export { BUNDLE_FORMAT, MAX_CANONICAL_BYTES, validateBundle } from './validate.js';
export type { BundleError, BundleSummary, BundleValidation } from './validate.js';
// In the bundle library, canonical JSON and parsing are kernos's (serde_json's reading, the kernos form).
export { kernosCanonicalBytes as canonicalBytesOf, kernosCanonicalJson as canonicalJson } from '../json/canonical.js';
export { sha256Hex } from '../json/digest.js';
export { bundleDigest, canonicalBundleBytes, parseBundleJson as parseJson } from './canonical.js';
export { JsonNumber, JsonSyntaxError } from '../json/parse.js';
export type { JsonObject, JsonValue, ParsedJson } from '../json/parse.js';
export { signatureFileText, signBundleValue, verifyBundleSignature, verifyBundleSignatureValue } from './signature.js';
export type { SignatureFile, VerifyResult } from './signature.js';
export { dataDirectory, loadPublicKey, loadSigningKey, newId, publicKeyJson, readTrustStore, trustDirectory, trustKey } from './keys.js';
export type { SigningKey, TrustedKey, TrustStore } from './keys.js';
export { jsonText } from './json-text.js';
