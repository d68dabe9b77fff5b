/**
 * Publisher keys as kernos makes and reads them (compat-kernos §2.3): ed25519 through `node:crypto`,
 * ids `key_<ULID>`, key files in kernos JSON, PEM (PKCS#8 / SPKI) or raw hex / base64 text, and the
 * trust store `<data>/keys/trusted/<key_id>.pub` that the control plane re-reads on every check.
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { readRegularFileSync } from '../fs/read.js';
import { replaceFileSync } from '../fs/write.js';
import { basename, extname, join, resolve } from 'node:path';
import { Refusal } from '../fs/refusal.js';
import { isJsonObject, type JsonObject, JsonSyntaxError, parseJson, SERDE_JSON } from '../json/parse.js';

export const ALGORITHM = 'ed25519';

export interface TrustedKey {
  keyId: string;
  /** 32 raw bytes. */
  publicKey: Uint8Array;
}

export interface SigningKey extends TrustedKey {
  /** The 32-byte seed. */
  seed: Uint8Array;
}

// DER headers of an ed25519 PKCS#8 private key and SPKI public key; the raw key bytes follow.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** `<prefix>_` + a 26-character lowercase Crockford ULID (48-bit milliseconds, 80 random bits). */
export function newId(prefix: string, now = Date.now()): string {
  let n = (BigInt(now) << 80n) | BigInt(`0x${randomBytes(10).toString('hex')}`);
  let ulid = '';
  for (let i = 0; i < 26; i++) {
    ulid = CROCKFORD[Number(n & 31n)]! + ulid;
    n >>= 5n;
  }
  return `${prefix}_${ulid}`;
}

export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Strict base64url without padding (what kernos accepts for signatures): undefined when not. */
export function decodeBase64urlStrict(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return decodeCanonical(text, 'base64url'); // rejects non-zero trailing bits
}

export function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

export function publicKeyOfSeed(seed: Uint8Array): Uint8Array {
  return new Uint8Array(createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length));
}

export function generateSigningKey(): SigningKey {
  const seed = new Uint8Array(randomBytes(32));
  return { keyId: newId('key'), seed, publicKey: publicKeyOfSeed(seed) };
}

/** Kernos JSON of a public key: the `.pub` file and the trust-store entry. */
export function publicKeyJson(key: TrustedKey): { key_id: string; algorithm: string; public_key: string } {
  return { key_id: key.keyId, algorithm: ALGORITHM, public_key: base64url(key.publicKey) };
}

function privateKeyJson(key: SigningKey) {
  return { ...publicKeyJson(key), private_key: base64url(key.seed) };
}

export interface GeneratedKeyFiles {
  key_id: string;
  private_key_file: string;
  public_key_file: string;
  public_key: string;
}

/** `keys generate --out BASE`: `BASE.key` (mode 0600) and `BASE.pub`, the extension appended to the full name. */
export function writeKeyPair(base: string, key: SigningKey = generateSigningKey()): GeneratedKeyFiles {
  if (/[/\\]$/.test(base) || isDirectory(base)) {
    throw new Refusal('usage', `--out ${base} names a directory: give a base name such as ${join(base, 'publisher')} (.key and .pub are appended)`, { exitCode: 2 });
  }
  const privateFile = `${base}.key`;
  const publicFile = `${base}.pub`;
  writeFileAtomic(privateFile, JSON.stringify(privateKeyJson(key), null, 2), 0o600);
  writeFileAtomic(publicFile, JSON.stringify(publicKeyJson(key), null, 2), 0o644);
  return { key_id: key.keyId, private_key_file: privateFile, public_key_file: publicFile, public_key: base64url(key.publicKey) };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A key or a signature written whole (never half of one), or a refusal naming the file. */
export function writeFileAtomic(file: string, text: string, mode = 0o644): void {
  try {
    replaceFileSync(file, text, { mode, makeDirs: false });
  } catch (error) {
    throw new Refusal('usage', `cannot write ${file}: ${(error as Error).message}`, { exitCode: 2 });
  }
}

function readKeyText(file: string): string {
  try {
    return readRegularFileSync(file);
  } catch (error) {
    throw new Refusal('usage', `cannot read key file ${file}: ${(error as Error).message}`, { exitCode: 2 });
  }
}

const invalid = (file: string, why: string) => new Refusal('key_invalid', `${file}: ${why}`);

/** The file name without its extension: the key id of a file that does not carry one. */
function stem(file: string): string {
  return basename(file, extname(file));
}

interface RawKeyMaterial {
  keyId: string;
  privateBytes?: Uint8Array;
  publicBytes?: Uint8Array;
}

function readKeyMaterial(file: string, text: string): RawKeyMaterial {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return jsonKeyMaterial(file, trimmed);
  if (trimmed.startsWith('-----BEGIN')) return pemKeyMaterial(file, trimmed);
  const bytes = decodeRawKey(trimmed);
  if (!bytes) throw invalid(file, 'not a key: expected kernos JSON, PEM, or the key bytes in hex or base64');
  // Raw text does not say which half it is: 32 bytes serve as either, 64 only as a private key.
  return { keyId: stem(file), privateBytes: bytes, ...(bytes.length === 32 ? { publicBytes: bytes } : {}) };
}

function jsonKeyMaterial(file: string, text: string): RawKeyMaterial {
  let json: JsonObject;
  try {
    const value = parseJson(text, SERDE_JSON).value; // a repeated key would let two readers see two keys
    if (!isJsonObject(value)) throw invalid(file, 'a key file in JSON must be an object');
    json = value;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw invalid(file, `not valid JSON: ${error.message}`);
  }
  const keyId = typeof json.key_id === 'string' ? json.key_id : stem(file);
  if (json.algorithm !== undefined && json.algorithm !== ALGORITHM) throw invalid(file, `unsupported algorithm ${String(json.algorithm)}`);
  const decode = (field: 'private_key' | 'public_key') => {
    const value = json[field];
    if (value === undefined) return undefined;
    const bytes = typeof value === 'string' ? decodeRawKey(value.trim()) : undefined;
    if (!bytes) throw invalid(file, `${field} is not hex or base64 key bytes`);
    return bytes;
  };
  const privateBytes = decode('private_key');
  const publicBytes = decode('public_key');
  return { keyId, ...(privateBytes ? { privateBytes } : {}), ...(publicBytes ? { publicBytes } : {}) };
}

function pemKeyMaterial(file: string, text: string): RawKeyMaterial {
  const isPrivate = /-----BEGIN PRIVATE KEY-----/.test(text);
  let key: KeyObject;
  try {
    key = isPrivate ? createPrivateKey(text) : createPublicKey(text);
  } catch (error) {
    throw invalid(file, `unreadable PEM: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== ALGORITHM) throw invalid(file, `not an ed25519 key (${key.asymmetricKeyType ?? 'unknown type'})`);
  const jwk = key.export({ format: 'jwk' });
  const bytes = (field: string | undefined) => new Uint8Array(Buffer.from(field ?? '', 'base64url'));
  return isPrivate ? { keyId: stem(file), privateBytes: bytes(jwk.d) } : { keyId: stem(file), publicBytes: bytes(jwk.x) };
}

/**
 * Hex (64 or 128 digits) wins; otherwise base64url without padding, then standard base64 — with the
 * control plane's decoders: trailing `=` is trimmed first, the standard alphabet then requires its padding
 * (so a 32-byte key in standard base64 with `+` or `/` is refused, as kernos refuses it), and non-zero
 * trailing bits are refused in both.
 */
export function decodeRawKey(text: string): Uint8Array | undefined {
  const t = text.trim().replace(/=+$/, '');
  if (/^(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{128})$/.test(t)) return new Uint8Array(Buffer.from(t, 'hex'));
  return decodeBase64urlStrict(t) ?? (/^[A-Za-z0-9+/]+$/.test(t) && t.length % 4 === 0 ? decodeCanonical(t, 'base64') : undefined);
}

function decodeCanonical(text: string, encoding: 'base64' | 'base64url'): Uint8Array | undefined {
  const bytes = Buffer.from(text, encoding);
  return bytes.toString(encoding) === text ? new Uint8Array(bytes) : undefined;
}

/** A private key file (`--key` of `bundle sign`). */
export function loadSigningKey(file: string): SigningKey {
  const material = readKeyMaterial(file, readKeyText(file));
  const bytes = material.privateBytes;
  if (!bytes) throw invalid(file, 'no private key in this file (a .pub file cannot sign)');
  if (bytes.length !== 32 && bytes.length !== 64) throw invalid(file, `a private key must be 32 or 64 bytes, got ${bytes.length}`);
  const seed = bytes.subarray(0, 32);
  return { keyId: checkedKeyId(file, material.keyId), seed, publicKey: publicKeyOfSeed(seed) };
}

/** A public key file (`keys trust`, the trust store); a private key file yields its public half. */
export function loadPublicKey(file: string, text = readKeyText(file)): TrustedKey {
  const material = readKeyMaterial(file, text);
  let publicKey = material.publicBytes;
  if (!publicKey && material.privateBytes && (material.privateBytes.length === 32 || material.privateBytes.length === 64)) {
    publicKey = publicKeyOfSeed(material.privateBytes.subarray(0, 32));
  }
  if (!publicKey) throw invalid(file, 'no public key in this file');
  if (publicKey.length !== 32) throw invalid(file, `a public key must be 32 bytes, got ${publicKey.length}`);
  if (!isEdwardsPoint(publicKey)) throw invalid(file, 'the public key is not a valid ed25519 point');
  return { keyId: checkedKeyId(file, material.keyId), publicKey };
}

/** Key ids name files in the trust store, so one that could escape the directory is refused. */
function checkedKeyId(file: string, keyId: string): string {
  if (keyId === '' || /[/\\]/.test(keyId) || keyId.startsWith('.')) throw invalid(file, `key_id ${JSON.stringify(keyId)} cannot name a trust-store file`);
  return keyId;
}

const P = 2n ** 255n - 19n;
const D = (-121665n * modPow(121666n, P - 2n)) % P;

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = ((base % P) + P) % P;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/**
 * Whether 32 bytes decompress to a curve point (as ed25519-dalek requires of a verifying key):
 * x² = (y² − 1) / (d·y² + 1) must have a square root mod p.
 */
export function isEdwardsPoint(bytes: Uint8Array): boolean {
  const le = Buffer.from(bytes).reverse().toString('hex');
  const y = (BigInt(`0x${le}`) & ((1n << 255n) - 1n)) % P;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  const x2 = (u * modPow(v, P - 2n)) % P;
  return x2 === 0n || modPow(x2, (P - 1n) / 2n) === 1n;
}

/** `--data`, else `KERNOS_DATA`, else `./kernos-data` — as `kernos keys trust` decides. */
export function dataDirectory(flag?: string): string {
  return resolve(flag ?? (process.env.KERNOS_DATA || 'kernos-data')); // an empty variable counts as unset
}

export function trustDirectory(dataDir: string): string {
  return join(dataDir, 'keys', 'trusted');
}

/** `keys trust FILE`: installs the public half as `<data>/keys/trusted/<key_id>.pub` in kernos JSON. */
export function trustKey(file: string, dataDir: string): { key_id: string; trusted_file: string } {
  const key = loadPublicKey(file);
  const dir = trustDirectory(dataDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new Refusal('usage', `cannot create ${dir}: ${(error as Error).message}`, { exitCode: 2 });
  }
  const trustedFile = join(dir, `${key.keyId}.pub`);
  writeFileAtomic(trustedFile, JSON.stringify(publicKeyJson(key), null, 2));
  return { key_id: key.keyId, trusted_file: trustedFile };
}

export interface TrustStore {
  keys: (TrustedKey & { file: string })[];
  /** Files that could not be read as keys: skipped, as the control plane skips them. */
  skipped: { file: string; reason: string }[];
}

/** The `*.pub` files of `<data>/keys/trusted/`; a missing directory is an empty store. */
export function readTrustStore(dataDir: string): TrustStore {
  return readKeyDirectory(trustDirectory(dataDir));
}

/** The `*.pub` files of a directory, by name; unreadable ones are skipped and listed. */
export function readKeyDirectory(dir: string): TrustStore {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.pub')).sort();
  } catch {
    return { keys: [], skipped: [] };
  }
  const store: TrustStore = { keys: [], skipped: [] };
  for (const name of names) {
    const file = join(dir, name);
    try {
      store.keys.push({ ...loadPublicKey(file), file });
    } catch (error) {
      store.skipped.push({ file, reason: (error as Error).message });
    }
  }
  return store;
}
