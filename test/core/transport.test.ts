import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCore } from '../../src/server/local.js';
import { call, OURS, startTestCore, tempDir, type TestCore } from './support.js';
import { describeAuthRoutesAndBodies } from './transport.js';

/** Auth, routing, bodies, idempotency, optimistic concurrency and durability — the core's transport rules. */
describeAuthRoutesAndBodies(OURS);

let core: TestCore;

beforeAll(async () => {
  core = await startTestCore();
});
afterAll(() => core.dispose());

describe('Idempotency-Key', () => {
  it('returns the first answer to a repeated write and writes nothing more', async () => {
    const key = randomUUID();
    const body = { key: 'idem-type', displayName: 'Once' };
    const first = await core.call('POST', '/api/v1/task-types', { body, headers: { 'Idempotency-Key': key } });
    // The same request in another member order and with a default filled in is the same request.
    const second = await core.call('POST', '/api/v1/task-types', { raw: '{ "displayName": "Once",\n "key": "idem-type" }', headers: { 'Idempotency-Key': ` ${key} ` } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect((await core.call('GET', '/api/v1/task-types?key=idem-type')).body.items).toHaveLength(1);
    const third = await core.call('POST', '/api/v1/task-types', { body, headers: { 'Idempotency-Key': randomUUID() } });
    expect(third.body.version).toBe(2);
  });

  it('keeps no refusal: the same key runs the request again, and another request under it is 409', async () => {
    const key = randomUUID();
    expect((await core.call('POST', '/api/v1/capabilities', { body: { name: 'dup' } })).status).toBe(201);
    const once = await core.call('POST', '/api/v1/capabilities', { body: { name: 'dup' }, headers: { 'Idempotency-Key': key } });
    const twice = await core.call('POST', '/api/v1/capabilities', { body: { name: 'dup' }, headers: { 'Idempotency-Key': key } });
    expect([once.status, twice.status]).toEqual([409, 409]);
    expect(twice.headers.get('idempotency-replayed')).toBeNull();
    const retried = await core.call('POST', '/api/v1/capabilities', { body: { name: 'retried' }, headers: { 'Idempotency-Key': key } });
    expect(retried.status).toBe(201);
    const other = await core.call('POST', '/api/v1/capabilities', { body: { name: 'other' }, headers: { 'Idempotency-Key': key } });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', details: { key } });
    expect((await core.call('GET', '/api/v1/capabilities')).body.items.filter((c: any) => c.name === 'other')).toEqual([]);
  });

  it('refuses a key that is empty or longer than 200 characters', async () => {
    for (const key of ['  ', 'k'.repeat(201)]) {
      const refused = await core.call('POST', '/api/v1/capabilities', { body: { name: 'never' }, headers: { 'Idempotency-Key': key } });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('invalid_idempotency_key');
    }
  });

  it('is ignored by /packages:plan, which writes nothing', async () => {
    const body = { package: { files: [{ path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: idle\nspec: {version: 1.0.0}\n' }] } };
    const key = randomUUID();
    const first = await core.call('POST', '/api/v1/packages:plan', { body, headers: { 'Idempotency-Key': key } });
    const other = await core.call('POST', '/api/v1/packages:plan', { body: { ...body, overwriteConsole: true }, headers: { 'Idempotency-Key': key } });
    expect([first.status, other.status]).toEqual([200, 200]);
    expect(other.headers.get('idempotency-replayed')).toBeNull();
    expect(other.body.planHash).not.toBe(first.body.planHash);
  });
});

describe('concurrent writes', () => {
  it('lets exactly one of many PATCHes with the same If-Match win; the others get 412 and nothing is lost', async () => {
    const role = await core.call('POST', '/api/v1/roles', { body: { slug: 'race', name: 'Race' } });
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => core.call('PATCH', `/api/v1/roles/${role.body.id}`, { body: { name: `writer ${i}` }, headers: { 'If-Match': '"role-1"' } })),
    );
    const winners = attempts.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 412)).toHaveLength(11);
    const now = await core.call('GET', `/api/v1/roles/${role.body.id}`);
    expect(now.body).toMatchObject({ version: 2, name: winners[0]!.body.name });
  });

  it('read-modify-write loops that retry on 412 lose no update', async () => {
    const role = await core.call('POST', '/api/v1/roles', { body: { slug: 'counter', name: '0' } });
    const path = `/api/v1/roles/${role.body.id}`;
    const increment = async () => {
      for (;;) {
        const read = await core.call('GET', path);
        const write = await core.call('PATCH', path, { body: { name: String(Number(read.body.name) + 1) }, headers: { 'If-Match': read.headers.get('etag')! } });
        if (write.status === 200) return;
        expect(write.status).toBe(412);
      }
    };
    await Promise.all(Array.from({ length: 8 }, increment));
    expect((await core.call('GET', path)).body).toMatchObject({ name: '8', version: 9 });
  });

  it('allocates distinct versions to concurrent creates of the same task type', async () => {
    await Promise.all(Array.from({ length: 10 }, () => core.call('POST', '/api/v1/task-types', { body: { key: 'parallel', displayName: 'P' } })));
    const versions = (await core.call('GET', '/api/v1/task-types?key=parallel')).body.items.map((i: any) => i.version);
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('durability', () => {
  it('keeps its state across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    try {
      const first = await startTestCore({ dataDir });
      const rule = await first.call('POST', '/api/v1/rules', { body: { key: 'kept', trigger: { observation: 'x' }, action: { kind: 'noop' } } });
      const key = randomUUID();
      await first.call('POST', '/api/v1/task-types', { body: { key: 'kept', displayName: 'Kept' }, headers: { 'Idempotency-Key': key } });
      const cpKey = (await first.call('GET', '/v1/keys')).body;
      await first.dispose();

      const second = await startTestCore({ dataDir });
      expect((await second.call('GET', `/api/v1/rules/${rule.body.id}`)).body).toMatchObject({ key: 'kept', version: 1 });
      const replay = await second.call('POST', '/api/v1/task-types', { body: { key: 'kept', displayName: 'Kept' }, headers: { 'Idempotency-Key': key } });
      expect(replay.body.version).toBe(1);
      expect((await second.call('GET', '/api/v1/task-types?key=kept')).body.items).toHaveLength(1);
      expect((await second.call('GET', '/v1/keys')).body).toEqual(cpKey);
      await second.dispose();
      const db = new Database(`${dataDir}/core.sqlite`, { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      db.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('startLocalCore: an embedded core on a free loopback port with a fresh token', async () => {
    const dataDir = tempDir();
    try {
      const local = await startLocalCore({ dataDir, version: '0.10.1' });
      expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(local.token.length).toBeGreaterThan(20);
      const doc = await call(local.url, local.token, 'GET', '/openapi.json');
      expect(doc.body.info.version).toBe('0.10.1');
      expect((await call(local.url, 'nope', 'GET', '/openapi.json')).status).toBe(401);
      await local.stop();
      await expect(fetch(`${local.url}/openapi.json`)).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
