import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../../src/fs/refusal.js';
import {
  loadPublicKey, loadSigningKey, newId, parseJson, readTrustStore, signatureFileText, signBundleValue, trustKey,
  verifyBundleSignature, type TrustedKey,
} from '../../src/bundle/index.js';
import { writeKeyPair } from '../../src/bundle/keys.js';
import { KEYS, REPAIR_FACTS, repairText, RFC_KEY_ID, RFC_PUBLIC_HEX, RFC_SEED_HEX, root, tamperedRepairText, tempDir } from './helpers.js';

const rfcKey = () => loadSigningKey(join(KEYS, 'rfc8032.key'));
const sign = (text: string) => signatureFileText(signBundleValue(parseJson(text).value, rfcKey()));
const trusted = (): TrustedKey[] => [loadPublicKey(join(KEYS, 'rfc8032.pub'))];

describe('signing vectors of the RFC 8032 TEST 1 key (compat-kernos §2.2)', () => {
  it('signs {"x":1}', () => {
    expect(JSON.parse(sign('{"x": 1}'))).toEqual({
      algorithm: 'ed25519', key_id: RFC_KEY_ID,
      sha256: '5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22',
      signature: 'ggSIR0rUZA50k81OoZ2GPFdij9w6PlL5HwJR92Qw8FAxICh56XS3ruSZx4auBbWoHsEp_28-08xAVZAiscfXDw',
    });
  });

  it('signs the minimal bundle', () => {
    const signature = JSON.parse(sign(readFileSync(join(root, 'fixtures/bundle/minimal.json'), 'utf8')));
    expect(signature.sha256).toBe('f832c5e7cd2f647ba7c2982a6c7877ae203b52ee3c9de68da1fafb3279b055a1');
    expect(signature.signature).toBe('iB7_6xeDHa8OsbZnspziJHLxIDcEZgL77UyvUY85OWdew81P7BLPiWdXu2A8A6G7twePNkkVNY1BN4B78eWUBA');
  });

  it('signs the repair-orders bundle as openssl does and writes the file as kernos does', () => {
    const text = sign(repairText());
    expect(text).toBe(`{
  "algorithm": "ed25519",
  "key_id": "${RFC_KEY_ID}",
  "sha256": "${REPAIR_FACTS.sha256}",
  "signature": "${REPAIR_FACTS.rfc8032Signature}"
}`);
    expect(verifyBundleSignature(repairText(), text, trusted())).toEqual({ ok: true, keyId: RFC_KEY_ID });
  });

  it.each(['rfc8032-pkcs8.pem', 'rfc8032-seed.hex', 'rfc8032-seed.b64url'])('reads the same private key from %s, named by the file stem', (file) => {
    const key = loadSigningKey(join(KEYS, file));
    expect(Buffer.from(key.seed).toString('hex')).toBe(RFC_SEED_HEX);
    expect(Buffer.from(key.publicKey).toString('hex')).toBe(RFC_PUBLIC_HEX);
    expect(key.keyId).toBe(file.slice(0, file.lastIndexOf('.')));
  });

  it('refuses the seed in padded standard base64, as the control plane decodes it (trimmed of its padding, which that alphabet then requires)', () => {
    expect(() => loadSigningKey(join(KEYS, 'rfc8032-seed-standard.b64'))).toThrow(/not a key/);
  });

  it.each(['rfc8032.pub', 'rfc8032-spki.pem', 'rfc8032.key'])('reads the public key from %s', (file) => {
    expect(Buffer.from(loadPublicKey(join(KEYS, file)).publicKey).toString('hex')).toBe(RFC_PUBLIC_HEX);
  });
});

describe('verification refusals, in the control plane words', () => {
  const refused = (message: string) => ({ ok: false, code: 'bundle_signature_invalid', message });

  it('refuses a tampered bundle', () => {
    expect(verifyBundleSignature(tamperedRepairText(), sign(repairText()), trusted())).toEqual(refused('signature does not verify over the canonical bundle'));
  });

  it('refuses a signature made by another key under the trusted key id', () => {
    const dir = tempDir();
    writeKeyPair(join(dir, 'other'));
    const other = { ...loadSigningKey(join(dir, 'other.key')), keyId: RFC_KEY_ID };
    const forged = signatureFileText(signBundleValue(parseJson(repairText()).value, other));
    expect(verifyBundleSignature(repairText(), forged, trusted())).toEqual(refused('signature does not verify over the canonical bundle'));
  });

  it('refuses an untrusted key', () => {
    expect(verifyBundleSignature(repairText(), sign(repairText()), [])).toEqual(refused(`key ${RFC_KEY_ID} is not trusted`));
    expect(verifyBundleSignature('{}', '{"key_id":"key_nobody","signature":"AAAA"}', trusted())).toEqual(refused('key key_nobody is not trusted'));
  });

  it('refuses a padded, a standard-alphabet or a short signature', () => {
    const good = JSON.parse(sign('{"x":1}'));
    const standard = good.signature.replaceAll('_', '/').replaceAll('-', '+');
    expect(standard).not.toBe(good.signature);
    for (const signature of [`${good.signature}==`, standard, good.signature.slice(0, 80)]) {
      const text = JSON.stringify({ ...good, signature });
      expect(verifyBundleSignature('{"x":1}', text, trusted())).toEqual(refused('signature does not verify over the canonical bundle'));
    }
    expect(verifyBundleSignature('{"x":1}', JSON.stringify(good), trusted()).ok).toBe(true);
  });

  it('refuses another algorithm and accepts a missing one as ed25519', () => {
    const good = JSON.parse(sign(repairText()));
    expect(verifyBundleSignature(repairText(), JSON.stringify({ ...good, algorithm: 'rsa' }), trusted())).toEqual(refused('unsupported algorithm rsa'));
    const { algorithm: _, ...bare } = good;
    expect(verifyBundleSignature(repairText(), JSON.stringify(bare), trusted()).ok).toBe(true);
  });

  it('refuses algorithm null, a repeated key and a sha256 that is not the canonical digest', () => {
    const good = JSON.parse(sign(repairText()));
    expect(verifyBundleSignature(repairText(), JSON.stringify({ ...good, algorithm: null }), trusted())).toEqual(refused('unsupported algorithm null'));
    const repeated = JSON.stringify({ ...good, algorithm: 'none' }).replace('{', '{"algorithm":"ed25519",');
    expect(verifyBundleSignature(repairText(), repeated, trusted())).toMatchObject({ ok: false, code: 'invalid_json', message: expect.stringMatching(/duplicate key 'algorithm'/) });
    const wrongDigest = JSON.stringify({ ...good, sha256: '0'.repeat(64) });
    expect(verifyBundleSignature(repairText(), wrongDigest, trusted())).toMatchObject({ ok: false, code: 'bundle_signature_invalid', message: expect.stringMatching(/sha256 .* is not the digest/) });
  });

  it('refuses a bundle with a repeated key, whose two readings are two bundles', () => {
    const text = repairText().replace('{', '{"version": "9.9.9",');
    expect(verifyBundleSignature(text, sign(repairText()), trusted())).toMatchObject({ ok: false, code: 'invalid_json', message: expect.stringMatching(/duplicate key 'version'/) });
  });

  // JSON.stringify prints the bundle's 25000.0 as 25000: other canonical bytes (compat-kernos §0.2).
  const rewritten = () => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(repairText())).reverse()), null, 4);

  it('verifies the same bundle written with another key order and whitespace', () => {
    const reordered = rewritten().replaceAll(/"maximum": 25000\b/g, '"maximum": 25000.0');
    expect(verifyBundleSignature(reordered, sign(repairText()), trusted()).ok).toBe(true);
  });

  it('refuses the bundle once a rewrite turned the integral float 25000.0 into 25000', () => {
    expect(verifyBundleSignature(rewritten(), sign(repairText()), trusted())).toEqual(refused('signature does not verify over the canonical bundle'));
  });

  it('refuses a signature object without key_id or signature, and says when a text is not JSON', () => {
    expect(verifyBundleSignature('{}', '{"signature":"AAAA"}', trusted())).toEqual(refused('the signature has no key_id or no signature string'));
    expect(verifyBundleSignature('{', sign('{}'), trusted())).toMatchObject({ ok: false, code: 'invalid_json' });
  });
});

describe('keys', () => {
  it('makes key_<ULID> ids: 26 lowercase Crockford characters, time first', () => {
    const id = newId('key', 0x0123456789ab);
    expect(id).toMatch(/^key_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(id.slice(4, 14)).toBe('014d2pf2db');
  });

  it('generates a pair: .key with mode 0600, .pub in kernos JSON, and they sign and verify', () => {
    const dir = tempDir();
    const made = writeKeyPair(join(dir, 'publisher'));
    expect(made.private_key_file).toBe(join(dir, 'publisher.key'));
    expect(statSync(made.private_key_file).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(made.private_key_file, 'utf8')))).toEqual(['key_id', 'algorithm', 'public_key', 'private_key']);
    expect(JSON.parse(readFileSync(made.public_key_file, 'utf8'))).toEqual({ key_id: made.key_id, algorithm: 'ed25519', public_key: made.public_key });
    const signature = signatureFileText(signBundleValue(parseJson(repairText()).value, loadSigningKey(made.private_key_file)));
    expect(verifyBundleSignature(repairText(), signature, [loadPublicKey(made.public_key_file)]).ok).toBe(true);
  });

  it('trusts a key into <data>/keys/trusted/<key_id>.pub and reads the store back, skipping what is not a key', () => {
    const dir = tempDir();
    const result = trustKey(join(KEYS, 'rfc8032-spki.pem'), dir);
    expect(result).toEqual({ key_id: 'rfc8032-spki', trusted_file: join(dir, 'keys/trusted/rfc8032-spki.pub') });
    trustKey(join(KEYS, 'rfc8032.pub'), dir);
    const store = readTrustStore(dir);
    expect(store.keys.map((k) => k.keyId)).toEqual([RFC_KEY_ID, 'rfc8032-spki']);
    expect(readTrustStore(join(dir, 'nowhere'))).toEqual({ keys: [], skipped: [] });
  });

  it.each([
    ['not a key at all!', /not a key/],
    ['{"key_id":"k","public_key":"AAAA"}', /a public key must be 32 bytes, got 3/],
    ['{"key_id":"../evil","public_key":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}', /cannot name a trust-store file/],
    ['{"key_id":"k","algorithm":"rsa","public_key":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}', /unsupported algorithm rsa/],
    ['{"key_id":"k","public_key":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","public_key":"AAAA"}', /duplicate key 'public_key'/],
    ['["11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"]', /not a key/],
    // the control plane's standard-base64 decoder needs its padding, which it trims first
    ['11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=', /not a key/],
    ['{"key_id":"k","public_key":"11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}', /public_key is not hex or base64/],
    // non-zero trailing bits
    ['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURp', /not a valid ed25519 point|not a key/],
    // y = 2 is not the y of any curve point
    ['0200000000000000000000000000000000000000000000000000000000000000', /not a valid ed25519 point/],
  ])('refuses %s as key_invalid', (text, message) => {
    const attempt = () => loadPublicKey('bad.pub', text);
    expect(attempt).toThrow(Refusal);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect((error as Refusal).code).toBe('key_invalid');
    }
  });
});
