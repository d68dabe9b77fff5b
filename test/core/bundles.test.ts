/** `/v1/bundles` and `/v1/keys` as kernos serves them (compat-kernos §4), with the trust store in the data directory. */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonValue, loadSigningKey, parseJson, signBundleValue, trustKey, validateBundle, verifyBundleSignatureValue } from '../../src/bundle/index.js';
import { writeKeyPair } from '../../src/bundle/keys.js';
import { REPAIR_BUNDLE, REPAIR_FACTS } from '../bundle/helpers.js';
import { type TestCore, startTestCore, tempDir } from './support.js';

const MINIMAL = '{"format":"kernos.bundle/1","name":"x","version":"0.0.1","workflows":{"w":{"steps":[{"action":{"kind":"k"},"id":"a","kind":"action"}]}}}';

let core: TestCore;
let keysDir: string;
let publisherKeyFile: string;
let publicKeyFile: string;

beforeAll(async () => {
  core = await startTestCore();
  keysDir = tempDir('core-keys-');
  const files = writeKeyPair(join(keysDir, 'publisher'));
  publisherKeyFile = files.private_key_file;
  publicKeyFile = files.public_key_file;
});
afterAll(async () => {
  await core.dispose();
  rmSync(keysDir, { recursive: true, force: true });
});

/** The request as `bundle apply` sends it: the bundle's own text inside, so its number lexemes reach the server. */
function request(bundleText: string, keyFile = publisherKeyFile, signedText = bundleText): string {
  const signature = signBundleValue(parseJson(signedText).value, loadSigningKey(keyFile));
  return `{"bundle": ${bundleText}, "signature": ${JSON.stringify(signature)}}`;
}

const apply = (raw: string) => core.call('POST', '/v1/bundles', { raw });

describe('POST /v1/bundles', () => {
  const bundle = readFileSync(REPAIR_BUNDLE, 'utf8');

  it('refuses a key that is not trusted, then accepts it once trusted — no restart', async () => {
    const untrusted = await apply(request(bundle));
    expect(untrusted.status).toBe(422);
    expect(untrusted.body.error.code).toBe('bundle_signature_invalid');
    expect(untrusted.body.error.message).toMatch(/is not trusted/);

    trustKey(publicKeyFile, core.dataDir);
    const created = await apply(request(bundle));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ bundle_id: expect.stringMatching(/^bnd_[0-9a-hjkmnp-tv-z]{26}$/), name: REPAIR_FACTS.name, version: REPAIR_FACTS.version });
    const again = await apply(request(bundle));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
  });

  it('stores and lists it', async () => {
    const list = await core.call('GET', '/v1/bundles');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const [summary] = list.body;
    expect(summary.workflows).toEqual([...summary.workflows].sort());
    const one = await core.call('GET', `/v1/bundles/${summary.bundle_id}`);
    expect(one.body).toMatchObject({ bundle_id: summary.bundle_id, bundle: JSON.parse(bundle), signature: { algorithm: 'ed25519', key_id: expect.stringMatching(/^key_/) } });
    const missing = await core.call('GET', '/v1/bundles/bnd_00000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'bundle_not_found', message: expect.any(String), details: {} } });
  });

  it('refuses a tampered bundle, another content for the same version, and an invalid bundle', async () => {
    const tampered = bundle.replace('"description": "', '"description": "Tampered. ');
    expect(tampered).not.toBe(bundle);
    const bad = await apply(request(tampered, publisherKeyFile, bundle));
    expect(bad.status).toBe(422);
    expect(bad.body.error).toEqual({ code: 'bundle_signature_invalid', message: 'signature does not verify over the canonical bundle', details: {} });

    const other = await apply(request(tampered));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('bundle_version_exists');

    const invalid = MINIMAL.replace('"kind":"action"', '"kind":"bogus"');
    const first = validateBundle(invalid).errors[0]!;
    const refused = await apply(request(invalid));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toEqual({ code: 'bundle_invalid', message: `${first.details.path}: ${first.message}`, details: { path: first.details.path, message: first.message } });
  });

  it('keeps number lexemes: a float written 1.0 is signed and stored as written', async () => {
    const withFloat = MINIMAL.replace('"version":"0.0.1"', '"version":"0.0.2","description":"costs 1250.0"').replace('{"kind":"k"}', '{"kind":"k","limit":1250.0}');
    const answer = await apply(request(withFloat));
    expect(answer.status).toBe(201);
  });

  it('serves a stored bundle byte for byte: every number form of the kernos vectors comes back, and the signature still verifies', async () => {
    const forms = ['7250.0', '1e16', '1E16', '-0', '-0.0', '0.1', '1.5e-7', '0.000001', '100.0', '1000000000000000.0', '1234567890123456.8', '5e-324', '18446744073709551615', '-9223372036854775808'];
    const text = MINIMAL.replace('"version":"0.0.1"', '"version":"0.0.9"').replace('{"kind":"k"}', `{"kind":"k","amounts":[${forms.join(', ')}]}`);
    const created = await apply(request(text));
    expect(created.status).toBe(201);
    const shown = await fetch(`${core.url}/v1/bundles/${created.body.bundle_id}`, { headers: { Authorization: `Bearer ${core.token}` } }).then((r) => r.text());
    expect(shown).toContain(`"bundle":${text},`);
    const { bundle: stored, signature } = parseJson(shown).value as { bundle: JsonValue; signature: JsonValue };
    const trusted = [{ keyId: loadSigningKey(publisherKeyFile).keyId, publicKey: loadSigningKey(publisherKeyFile).publicKey }];
    expect(verifyBundleSignatureValue(stored, signature, trusted)).toEqual({ ok: true, keyId: trusted[0]!.keyId });
  });

  it('a key removed from the trust store is refused on the next apply', async () => {
    const key = loadSigningKey(publisherKeyFile);
    rmSync(join(core.dataDir, 'keys', 'trusted', `${key.keyId}.pub`));
    const answer = await apply(request(MINIMAL.replace('0.0.1', '0.0.3')));
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('bundle_signature_invalid');
  });

  it('accepts the control-plane key as a signer, and serves it at /v1/keys', async () => {
    const served = await core.call('GET', '/v1/keys');
    const file = join(core.dataDir, 'keys', 'control-plane.key');
    expect(served.body).toEqual({ key_id: loadSigningKey(file).keyId, algorithm: 'ed25519', public_key: expect.any(String) });
    expect((await apply(request(MINIMAL.replace('0.0.1', '0.0.4'), file))).status).toBe(201);
  });

  it('refuses a bundle with a repeated key under the signature of the original: 400 invalid_json, nothing stored', async () => {
    const original = MINIMAL.replace('0.0.1', '0.19.0');
    const hidden = original.replace('"version":"0.19.0"', '"version":"9.9.9","version":"0.19.0"');
    const answer = await apply(request(hidden, publisherKeyFile, original));
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: expect.stringContaining("duplicate key 'version'") } } });
    const listed = await core.call('GET', '/v1/bundles');
    expect(listed.body.map((b: { version: string }) => b.version)).not.toContain('9.9.9');
    expect(listed.body.map((b: { version: string }) => b.version)).not.toContain('0.19.0');
  });

  it('answers 400 invalid_json for a body without a signature object', async () => {
    const answer = await core.call('POST', '/v1/bundles', { raw: `{"bundle": ${MINIMAL}}` });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_json');
  });
});
