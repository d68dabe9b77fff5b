// The client against the real local core (in process), and `bundle apply|list|show --server local` end to end.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBundle, connection, listBundles, showBundle } from '../../src/bundle/client.js';
import { Refusal } from '../../src/fs/refusal.js';
import { canonicalJson, type JsonValue, loadPublicKey, parseJson, trustKey, verifyBundleSignatureValue } from '../../src/bundle/index.js';
import { writeKeyPair } from '../../src/bundle/keys.js';
import { signBundleFile } from '../../src/bundle/signature.js';
import { startLocalCore } from '../../src/server/local.js';
import { runCli } from '../support/cli.js';
import { KEYS, REPAIR_BUNDLE, REPAIR_FACTS, RFC_KEY_ID, SPEC_BUNDLE, repairText, tamperedRepairText, tempDir } from './helpers.js';

describe('connection rules', () => {
  it.each([
    ['https://cp.example.com/v1/', 'https://cp.example.com'],
    ['http://127.0.0.1:7401', 'http://127.0.0.1:7401'],
    ['http://localhost:7401/', 'http://localhost:7401'],
    ['http://[::1]:7401/v1', 'http://[::1]:7401'],
    ['https://example.com/kernos/v1', 'https://example.com/kernos'],
  ])('accepts %s as %s', (server, base) => {
    expect(connection(server, 't')).toEqual({ base, token: 't' });
  });

  it.each(['http://cp.example.com', 'http://10.0.0.5:7401', 'ftp://127.0.0.1', 'not a url'])('refuses %s (exit 2)', (server) => {
    expect(() => connection(server, undefined)).toThrow(Refusal);
  });
});

describe('against the local core', () => {
  let core: Awaited<ReturnType<typeof startLocalCore>>;
  let dataDir: string;
  let work: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'bundle-core-'));
    work = mkdtempSync(join(tmpdir(), 'bundle-work-'));
    core = await startLocalCore({ dataDir, token: 'secret' });
  });
  afterAll(async () => {
    await core.stop();
    for (const dir of [dataDir, work]) rmSync(dir, { recursive: true, force: true });
  });

  it('applies a signed bundle (201), again (200), lists and shows it; refuses what kernos refuses', async () => {
    const conn = connection(core.url, 'secret');
    copyFileSync(REPAIR_BUNDLE, join(work, 'bundle.json'));
    signBundleFile({ file: join(work, 'bundle.json'), key: join(KEYS, 'rfc8032.key') });
    await expect(applyBundle({ file: join(work, 'bundle.json'), conn })).rejects.toMatchObject({ code: 'bundle_signature_invalid', message: `key ${RFC_KEY_ID} is not trusted` });
    trustKey(join(KEYS, 'rfc8032.pub'), dataDir);
    const created = await applyBundle({ file: join(work, 'bundle.json'), conn });
    expect(created).toMatchObject({ status: 201, name: REPAIR_FACTS.name, version: REPAIR_FACTS.version });
    expect(await applyBundle({ file: join(work, 'bundle.json'), conn })).toEqual({ ...created, status: 200 });
    expect((await listBundles(conn)).map((b) => b.bundle_id)).toContain(created.bundle_id);
    const shown = await showBundle(conn, created.bundle_id);
    expect(shown).toMatchObject({ bundle_id: created.bundle_id, name: REPAIR_FACTS.name });
    // Shown with its numbers as signed (25000.0, not 25000): the original signature verifies it.
    expect(canonicalJson(shown.bundle!)).toBe(canonicalJson(parseJson(repairText()).value));
    expect(verifyBundleSignatureValue(shown.bundle!, shown.signature!, [loadPublicKey(join(KEYS, 'rfc8032.pub'))])).toMatchObject({ ok: true });
    await expect(showBundle(conn, 'bnd_nope')).rejects.toMatchObject({ code: 'bundle_not_found' });

    writeFileSync(join(work, 'bundle.json'), tamperedRepairText());
    await expect(applyBundle({ file: join(work, 'bundle.json'), sig: join(work, 'bundle.sig.json'), conn }))
      .rejects.toMatchObject({ code: 'bundle_signature_invalid', message: 'signature does not verify over the canonical bundle' });
    signBundleFile({ file: join(work, 'bundle.json'), key: join(KEYS, 'rfc8032.key') });
    await expect(applyBundle({ file: join(work, 'bundle.json'), conn })).rejects.toMatchObject({ code: 'bundle_version_exists' });

    writeFileSync(join(work, 'bad.json'), readFileSync(SPEC_BUNDLE, 'utf8').replace('"idempotency_key": {"$ref": "input.invoice_id"},', ''));
    signBundleFile({ file: join(work, 'bad.json'), key: join(KEYS, 'rfc8032.key'), validate: false });
    await expect(applyBundle({ file: join(work, 'bad.json'), conn }))
      .rejects.toMatchObject({ code: 'bundle_invalid', details: { path: 'workflows.intake.steps.3.idempotency_key' } });
    await expect(listBundles(connection(core.url, 'wrong'))).rejects.toMatchObject({ code: 'unauthorized' });
  });
});

describe('package-sdk bundle apply|list|show --server local (built CLI)', () => {
  it('applies, lists and shows through the embedded core, its trust store in .package-sdk/core', async () => {
    const dir = tempDir();
    copyFileSync(REPAIR_BUNDLE, join(dir, 'bundle.json'));
    writeKeyPair(join(dir, 'publisher'));
    signBundleFile({ file: join(dir, 'bundle.json'), key: join(dir, 'publisher.key') });
    trustKey(join(dir, 'publisher.pub'), join(dir, '.package-sdk/core'));
    const applied = await runCli(['bundle', 'apply', 'bundle.json', '--server', 'local', '--json'], { cwd: dir });
    expect(applied.code).toBe(0);
    const { bundle_id: id } = JSON.parse(applied.stdout);
    expect(JSON.parse(applied.stdout)).toMatchObject({ status: 201, name: REPAIR_FACTS.name });
    const listed = await runCli(['bundle', 'list', '--server', 'local'], { cwd: dir });
    expect(listed.stdout).toContain(id);
    const printed = (await runCli(['bundle', 'show', id, '--server', 'local', '--json'], { cwd: dir })).stdout;
    const shown = parseJson(printed).value as { bundle: JsonValue; signature: JsonValue };
    expect(shown).toMatchObject({ bundle_id: id, version: REPAIR_FACTS.version });
    expect(printed).toContain('"maximum": 25000.0');
    expect(verifyBundleSignatureValue(shown.bundle, shown.signature, [loadPublicKey(join(dir, 'publisher.pub'))])).toMatchObject({ ok: true });
  });
});
