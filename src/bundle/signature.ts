/**
 * Bundle signatures (compat-kernos §2.2): pure ed25519 over the canonical bytes of the bundle,
 * base64url without padding, in a signature file `{algorithm, key_id, sha256, signature}`.
 * Verification follows the control plane's order and wording, so a refusal reads the same here
 * and in a `422 bundle_signature_invalid` from the server.
 */
import { sign, verify } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { kernosCanonicalBytes } from '../json/canonical.js';
import { sha256Hex } from '../json/digest.js';
import { Refusal } from '../fs/refusal.js';
import { defaultSignatureFile, readJsonFile } from './file.js';
import { isJsonObject, type JsonValue, JsonSyntaxError, parseJson, SERDE_JSON } from '../json/parse.js';
import {
  ALGORITHM, base64url, dataDirectory, decodeBase64urlStrict, loadPublicKey, loadSigningKey, privateKeyObject, publicKeyObject, readKeyDirectory,
  readTrustStore, type SigningKey, type TrustedKey, trustDirectory, writeFileAtomic,
} from './keys.js';
import { validateBundle } from './validate.js';

export interface SignatureFile {
  algorithm: string;
  key_id: string;
  sha256: string;
  signature: string;
}

export type VerifyResult = { ok: true; keyId: string } | { ok: false; code: string; message: string };

export function signBundleValue(bundle: JsonValue, key: SigningKey): SignatureFile {
  const bytes = kernosCanonicalBytes(bundle);
  const signature = sign(null, bytes, privateKeyObject(key.seed));
  return { algorithm: ALGORITHM, key_id: key.keyId, sha256: sha256Hex(bytes), signature: base64url(signature) };
}

/** The file kernos writes: two-space indentation, keys in alphabetical order, no trailing newline. */
export function signatureFileText(signature: SignatureFile): string {
  return JSON.stringify(signature, ['algorithm', 'key_id', 'sha256', 'signature'], 2);
}

const refuse = (message: string): VerifyResult => ({ ok: false, code: 'bundle_signature_invalid', message });

/**
 * Checks a signature object against a bundle value as the control plane does: algorithm (default
 * ed25519), then the key by its exact `key_id`, then the signature, then (our own) the `sha256` field. Stricter than the control plane where
 * it would accept what nobody signed: `"algorithm": null` is refused rather than taken as the default, and a
 * `sha256` that is present must be the digest of the canonical bundle (kernos ignores it). A signature
 * without `key_id` or `signature` is refused as `bundle_signature_invalid` too — what the kernos docs
 * promise for unsigned bundles (its server answers `400 invalid_json` instead).
 */
export function verifyBundleSignatureValue(bundle: JsonValue, signature: JsonValue, trusted: readonly TrustedKey[]): VerifyResult {
  if (!isJsonObject(signature)) return refuse('the signature must be a JSON object with key_id and signature');
  const { key_id: keyId, signature: encoded, sha256 } = signature;
  if (typeof keyId !== 'string' || typeof encoded !== 'string') return refuse('the signature has no key_id or no signature string');
  const algorithm = 'algorithm' in signature ? signature.algorithm : ALGORITHM;
  if (algorithm !== ALGORITHM) return refuse(`unsupported algorithm ${typeof algorithm === 'string' ? algorithm : JSON.stringify(algorithm)}`);
  const key = trusted.find((k) => k.keyId === keyId);
  if (!key) return refuse(`key ${keyId} is not trusted`);
  const bytes = kernosCanonicalBytes(bundle);
  const decoded = decodeBase64urlStrict(encoded);
  const good = decoded?.length === 64 && verify(null, bytes, publicKeyObject(key.publicKey), decoded);
  if (!good) return refuse('signature does not verify over the canonical bundle');
  // Last, so that every refusal the control plane also gives reads in its words.
  if (sha256 !== undefined && sha256 !== sha256Hex(bytes)) return refuse(`the signature's sha256 ${JSON.stringify(sha256)} is not the digest of the canonical bundle`);
  return { ok: true, keyId };
}

/** `verifyBundleSignatureValue` over texts; a text that is not JSON is `invalid_json`. */
export function verifyBundleSignature(text: string, signatureText: string, trusted: readonly TrustedKey[]): VerifyResult {
  try {
    return verifyBundleSignatureValue(parseJson(text, SERDE_JSON).value, parseJson(signatureText, SERDE_JSON).value, trusted);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, code: 'invalid_json', message: error.message };
    throw error;
  }
}

export interface SignedFile extends SignatureFile {
  /** The signature file written. */
  file: string;
}

/**
 * `bundle sign`: validates first (kernos does not; a signed invalid bundle is refused on apply anyway,
 * so we stop earlier) unless `validate` is false, then writes the signature file atomically.
 */
export function signBundleFile(options: { file: string; key: string; out?: string; validate?: boolean }): SignedFile {
  const parsed = readJsonFile(options.file, 'bundle');
  if (options.validate !== false) {
    const [first] = validateBundle(parsed, options.file).errors;
    if (first) {
      throw new Refusal('bundle_invalid', `bundle is invalid at ${first.details.path || '(root)'}: ${first.message} (sign with --no-validate to sign it anyway)`, { exitCode: 1, details: {
        path: first.details.path, line: first.line, column: first.column,
      } });
    }
  }
  const signature = signBundleValue(parsed.value, loadSigningKey(options.key));
  const out = options.out ?? defaultSignatureFile(options.file);
  writeFileAtomic(out, signatureFileText(signature));
  return { ...signature, file: out };
}

export interface VerifiedFile {
  ok: true;
  key_id: string;
  sha256: string;
  signature_file: string;
  /** Where the trusted keys came from. */
  trust: string;
}

/**
 * `bundle verify`: the control plane's check, offline. `trust` is a data directory (its
 * `keys/trusted/`), a directory of `.pub` files, or one public key file.
 */
export function verifyBundleFile(options: { file: string; sig?: string; trust?: string }): VerifiedFile {
  const bundle = readJsonFile(options.file, 'bundle');
  const sigFile = options.sig ?? defaultSignatureFile(options.file);
  const signature = readJsonFile(sigFile, 'signature file');
  const trust = options.trust ?? dataDirectory();
  const result = verifyBundleSignatureValue(bundle.value, signature.value, trustedKeysAt(trust));
  if (!result.ok) throw new Refusal(result.code, result.message, { exitCode: 1 });
  return { ok: true, key_id: result.keyId, sha256: sha256Hex(kernosCanonicalBytes(bundle.value)), signature_file: sigFile, trust };
}

function trustedKeysAt(trust: string): TrustedKey[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(trust).isDirectory();
  } catch {
    return []; // no trust store yet: every key is untrusted
  }
  if (!isDirectory) return [loadPublicKey(trust)];
  return (existsSync(trustDirectory(trust)) ? readTrustStore(trust) : readKeyDirectory(trust)).keys;
}
