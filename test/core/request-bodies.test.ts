// The local core refuses bodies it cannot keep faithfully — too large, not UTF-8, not Unicode — with an answer, not a reset.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageSource } from '../../src/server/package-source.js';
import { SOURCE_CHARACTER_LIMIT } from '../../src/load/source.js';
import { startTestCore, type TestCore } from './support.js';

let core: TestCore;
beforeAll(async () => {
  core = await startTestCore();
});
afterAll(() => core.dispose());

/** Sends `body` bytes as they are (fetch would re-encode a string) and returns status and parsed answer. */
function post(path: string, body: Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${core.url}${path}`, {
      method: 'POST', headers: { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('request bodies', () => {
  it('answers 413 to a body over 64 MiB instead of resetting the connection', async () => {
    const answer = await post('/api/v1/capabilities', Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect((await core.call('GET', '/api/v1/capabilities')).status).toBe(200);
  }, 60_000);

  it('refuses a name with a lone surrogate, escaped or raw', async () => {
    for (const raw of ['{"name":"\\ud800"}', '{"name":"a\\udc00b"}', '{"\\ud83d":1,"name":"x"}']) {
      const answer = await post('/api/v1/capabilities', Buffer.from(raw));
      expect(answer, raw).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: expect.stringContaining('lone surrogate') } } });
    }
    expect((await core.call('GET', '/api/v1/capabilities')).body.items ?? []).not.toContainEqual(expect.objectContaining({ name: '\ud800' }));
  });

  it('refuses bytes that are not UTF-8 instead of storing U+FFFD', async () => {
    const answer = await post('/api/v1/capabilities', Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: 'the request body is not UTF-8 text' } } });
  });

  it('still takes a pair of surrogates, a whole character', async () => {
    const answer = await post('/api/v1/capabilities', Buffer.from('{"name":"smile-\\ud83d\\ude00"}'));
    expect(answer.status).not.toBe(400);
  });
});

describe('package sources', () => {
  it("refuses a package over the core's limit of source characters before parsing any file", async () => {
    const started = performance.now();
    const blank = '\n'.repeat(SOURCE_CHARACTER_LIMIT / 2);
    const source = await readPackageSource([
      { path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: big\nspec: {}\n' },
      { path: 'roles/a.yaml', content: blank }, { path: 'roles/b.yaml', content: blank },
    ], null);
    expect(source.problems).toMatchObject([{ code: 'invalid_yaml', message: expect.stringContaining("over the core's limit of 4000000") }]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('responsiveness', () => {
  it('answers /v1/health while a plan of ten large files parses: it waits for one file, not for the package', async () => {
    const files = [{ path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: slow\nspec: {version: 1.0.0}\n' }];
    // The document marker sends each file to the full YAML parser, slow on 60,000 lines (the scanner of common
    // package YAML would read them at once and leave nothing to wait for).
    for (let i = 0; i < 10; i++) files.push({ path: `roles/r${i}.yaml`, content: `---\napiVersion: taimen.ai/v1\nkind: Role\nkey: r${i}\nspec: {name: R}\n${'\n'.repeat(60_000)}` });
    const started = performance.now();
    let planning = true;
    const plan = core.call('POST', '/api/v1/packages:plan', { body: { package: { files } } }).finally(() => {
      planning = false;
    });
    let longest = 0;
    while (planning) {
      const asked = performance.now();
      expect((await core.call('GET', '/v1/health')).status).toBe(200);
      longest = Math.max(longest, performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await plan).status).toBe(200);
    const total = performance.now() - started;
    expect(longest, `health waited up to ${Math.round(longest)} ms during a ${Math.round(total)} ms plan`).toBeLessThan(total / 5);
  }, 120_000);
});
