/**
 * The Kernos reference bundle of the corpus (kernos/halcyon/bundle.json) through every bundle command's work:
 * valid with its summary, its canonical bytes and digest, its signature with the RFC 8032 key, its mock runs,
 * and the local core accepting it. The same behaviours on our own bundle are in test/bundle/.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBundle, connection, listBundles, showBundle } from '../../src/bundle/client.js';
import {
  bundleDigest, canonicalBundleBytes, canonicalJson, loadPublicKey, loadSigningKey, parseJson, signatureFileText, signBundleValue, trustKey,
  validateBundle, verifyBundleSignature, verifyBundleSignatureValue,
} from '../../src/bundle/index.js';
import type { JsonObject } from '../../src/json/parse.js';
import { renderTrace } from '../../src/report/bundle.js';
import { runBundle, type RunOptions } from '../../src/bundle/run.js';
import { signBundleFile } from '../../src/bundle/signature.js';
import { startLocalCore } from '../../src/server/local.js';
import { paintFor } from '../../src/report/paint.js';
import { KEYS, RFC_KEY_ID, root } from '../bundle/helpers.js';
import { corpus } from './corpus.js';

const REFERENCE = corpus('kernos/halcyon/bundle.json');
const referenceText = () => readFileSync(REFERENCE, 'utf8');
const tampered = () => referenceText().replace('Halcyon Provisions."', 'Halcyon Provisions!"');
const SHA256 = '6e3923331cd7bf271c2d53d2e90365ea62c739f17a7a85b6e3fc4c18b641b6e9';
const RFC_SIGNATURE = 'Y7wDGcPN52jQRvqvqZw1dR1ljJWL6EZmw6NV3luvAR5HeVa0m9UpzyptC34W9B2fomCwG5ZTxuggmzFtRRk5Cw';

describe('the reference bundle', () => {
  it('is valid, summarized as kernos bundle validate prints it', () => {
    expect(validateBundle(referenceText())).toMatchObject({
      ok: true, errors: [],
      summary: { name: 'halcyon.finance.invoice_intake', version: '1.0.0', department: 'finance', workflows: 5, steps: 19 },
    });
  });

  it('has the canonical form of kernos: 11 233 bytes, sha256 6e39…b6e9', () => {
    const bytes = canonicalBundleBytes(referenceText());
    expect(bytes.length).toBe(11233);
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith('{"department":"finance","description":"Invoice intake, coding and posting for Halcyon Provisions.","format":"kernos.bundle/1","mock":{"code":{"account":"5100","')).toBe(true);
    expect(text.endsWith(',"id":"boom","kind":"tool","tool":"test.fail"}]}}}')).toBe(true);
    expect(bundleDigest(referenceText())).toBe(SHA256);
  });

  it('changes its digest when one character of the description changes (the A11 tamper)', () => {
    expect(bundleDigest(tampered())).toBe('20f56fe248c00f3b8610f58cc9f2fd1f7bf14dd10a04e77a23febca87ddc6cdf');
  });

  it('is signed by the RFC 8032 key exactly as kernos signs it, and verifies until tampered', () => {
    const text = signatureFileText(signBundleValue(parseJson(referenceText()).value, loadSigningKey(join(KEYS, 'rfc8032.key'))));
    expect(text).toBe(`{
  "algorithm": "ed25519",
  "key_id": "${RFC_KEY_ID}",
  "sha256": "${SHA256}",
  "signature": "${RFC_SIGNATURE}"
}`);
    const trusted = [loadPublicKey(join(KEYS, 'rfc8032.pub'))];
    expect(verifyBundleSignature(referenceText(), text, trusted)).toEqual({ ok: true, keyId: RFC_KEY_ID });
    expect(verifyBundleSignature(tampered(), text, trusted)).toMatchObject({ ok: false, code: 'bundle_signature_invalid', message: 'signature does not verify over the canonical bundle' });
  });
});

describe('the reference bundle run with its mock', () => {
  const tools = parseJson(readFileSync(join(root, 'fixtures/bundle/tools.json'), 'utf8')).value as JsonObject;
  const input = parseJson(readFileSync(join(root, 'fixtures/bundle/input.json'), 'utf8')).value;
  const run = (workflow: string, options: Partial<RunOptions> = {}) => runBundle(parseJson(referenceText()), { workflow, input, tools, ...options });

  it('runs intake to the end: mock outputs, a local decision, canned tool results and the idempotency key', () => {
    const trace = run('intake');
    expect(trace.status).toBe('completed');
    expect(trace.steps.map((s) => [s.id, s.status])).toEqual([['extract', 'completed'], ['code', 'completed'], ['propose_payment', 'completed'], ['post', 'completed']]);
    const [extract, , propose, post] = trace.steps;
    // the input's lexeme 7250.0 survives the mock's {"$ref": "input.total"}
    expect(canonicalJson(extract!.output!)).toBe('{"currency":"USD","description":"Milk delivery","invoice_id":"inv-1001","total":7250.0,"vendor":"Northwind Dairy"}');
    expect(extract!.prompt!.user).toBe('Invoice text:\nNorthwind Dairy, milk delivery, total 7250.00 USD');
    expect(propose!.output).toMatchObject({ decision: 'allow', rule: 'local', approval_id: null });
    expect((propose!.action as JsonObject).summary).toBe('Pay invoice inv-1001 to Northwind Dairy');
    expect(post!.idempotency_key).toBe('inv-1001');
    expect(post!.output).toEqual({ entry_id: 'je-inv-1001', posted: true });
  });

  it('compensates the two postings newest first when double_post_then_fail fails', () => {
    const trace = run('double_post_then_fail');
    expect(trace.status).toBe('failed');
    expect(trace.error).toEqual({ step: 'boom', code: 'tool_failed', message: 'the gateway test tool fails deterministically' });
    expect(trace.compensations.map((c) => [c.id, c.tool, c.status])).toEqual([['post_b', 'ledger.void_entry', 'completed'], ['post_a', 'ledger.void_entry', 'completed']]);
    expect(trace.compensations[0]!.args).toEqual({ entry_id: 'je-inv-1001', reason: 'run abandoned' });
    const text = renderTrace(trace, paintFor({ isTTY: false }));
    expect(text).toContain('compensations (newest first):');
    expect(text.split('\n').at(-1)).toBe('run failed at step boom: tool_failed: the gateway test tool fails deterministically');
  });

  it('stops at a denied action, approves with an approval id, escalates low confidence, checks the answer', () => {
    expect(run('intake', { decide: 'deny' }).error).toMatchObject({ step: 'propose_payment', code: 'action_denied' });
    const approved = run('intake', { decide: 'approve' }).steps[2]!.output as JsonObject;
    expect(approved.rule).toBe(`approved:${approved.approval_id as string}`);
    expect(run('intake', { confidence: { code: 0.2 } }).steps.at(-1)).toMatchObject({ id: 'code', status: 'parked', tiers: ['cheap', 'standard'] });
    expect(run('intake', { confidence: { code: 3 } }).error).toMatchObject({ step: 'code', code: 'output_invalid', message: 'the answer does not satisfy output_schema: confidence must be at most 1' });
    expect(run('intake', { refuse: ['extract'] }).steps[0]).toMatchObject({ status: 'parked', output: { text: 'I cannot help with this request.' } });
    expect(run('intake', { tools: {} }).error).toMatchObject({ step: 'post', code: 'tool_result_missing' });
  });

  it('refuses an input that breaks its input_schema and a workflow it does not have', () => {
    expect(() => run('intake', { input: { invoice_id: '', text: 't', total: 1 } })).toThrow('input invoice_id must be at least 1 characters long');
    expect(() => run('nope')).toThrow(/workflow nope is not in the bundle/);
  });
});

describe('the reference bundle on the local core', () => {
  let core: Awaited<ReturnType<typeof startLocalCore>>;
  let dataDir: string;
  let work: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'reference-core-'));
    work = mkdtempSync(join(tmpdir(), 'reference-work-'));
    core = await startLocalCore({ dataDir, token: 'secret' });
  });
  afterAll(async () => {
    await core.stop();
    for (const dir of [dataDir, work]) rmSync(dir, { recursive: true, force: true });
  });

  it('is applied (201), again (200), listed and stored as sent', async () => {
    const conn = connection(core.url, 'secret');
    const file = join(work, 'bundle.json');
    copyFileSync(REFERENCE, file);
    signBundleFile({ file, key: join(KEYS, 'rfc8032.key') });
    trustKey(join(KEYS, 'rfc8032.pub'), dataDir);
    const created = await applyBundle({ file, conn });
    expect(created).toMatchObject({ status: 201, name: 'halcyon.finance.invoice_intake', version: '1.0.0' });
    expect(await applyBundle({ file, conn })).toEqual({ ...created, status: 200 });
    expect((await listBundles(conn)).map((b) => b.bundle_id)).toContain(created.bundle_id);
    const shown = await showBundle(conn, created.bundle_id);
    expect(shown).toMatchObject({ bundle_id: created.bundle_id, name: 'halcyon.finance.invoice_intake' });
    expect(canonicalJson(shown.bundle!)).toBe(canonicalJson(parseJson(referenceText()).value));
    expect(verifyBundleSignatureValue(shown.bundle!, shown.signature!, [loadPublicKey(join(KEYS, 'rfc8032.pub'))])).toEqual({ ok: true, keyId: RFC_KEY_ID });
  });
});
