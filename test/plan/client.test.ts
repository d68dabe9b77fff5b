/**
 * The core client's transport rules (compat-package-sdk-install §6.1), against the real local core and
 * against a small loopback server that answers what a test needs (redirects, 401s, silence).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CoreClient, CoreHttpError, CoreTransportError, serverBase, staticToken, type TokenProvider } from '../../src/client/client.js';
import { startTestCore, type TestCore } from '../core/support.js';

describe('serverBase', () => {
  it.each(['https://cp.example.com', 'https://cp.example.com/', 'https://cp.example.com:8443/base', 'http://localhost:8600', 'http://127.0.0.1:1/x', 'http://[::1]:9'])(
    'accepts %s', (server) => expect(serverBase(server)).toBe(server.replace(/\/$/, '')));
  it.each(['http://cp.example.com', 'https://token@cp.example.com', 'ftp://cp.example.com', 'cp.example.com', 'http://10.0.0.1:80', 'https://'])(
    'refuses %s', (server) => expect(() => serverBase(server)).toThrow(/expected https:\/\/… \(http only for localhost\), without credentials/));
});

describe('against the local core', () => {
  let core: TestCore;
  beforeAll(async () => {
    core = await startTestCore();
  });
  afterAll(async () => core.dispose());

  it('reads a list page by page until nextCursor is empty', async () => {
    const client = new CoreClient(core.url, { token: staticToken(core.token) });
    for (let i = 0; i < 130; i++) await client.send('POST', '/api/v1/capabilities', { body: { name: `cap-${String(i).padStart(3, '0')}` } });
    const before = client.requests;
    const items = await client.list<{ name: string }>('/api/v1/capabilities');
    expect(items.map((item) => item.name).filter((name) => name.startsWith('cap-'))).toHaveLength(130);
    expect(client.requests - before).toBe(2);
  });

  it('turns the error envelope into a CoreHttpError with the core\'s code and message', async () => {
    const client = new CoreClient(core.url, { token: staticToken(core.token) });
    const error = await client.get('/api/v1/task-types/00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreHttpError);
    expect(error).toMatchObject({ status: 404, method: 'GET' });
    expect(await client.find('/api/v1/task-types/00000000-0000-4000-8000-000000000000')).toBeUndefined();
    const denied = await new CoreClient(core.url, { token: staticToken('wrong') }).get('/openapi.json').catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 401, code: 'invalid_credentials' });
  });

  it('sends a fresh Idempotency-Key with each write, which the core ignores on /packages:plan', async () => {
    const client = new CoreClient(core.url, { token: staticToken(core.token) });
    const answer = await client.send<{ planHash: string }>('POST', '/api/v1/packages:plan', { body: { package: { files: [{ path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: p\nspec: {version: 1.0.0}\n' }] } } });
    expect(answer.planHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A loopback server whose answers a test scripts; it records what it was sent. */
async function scriptedServer(answer: (request: Seen, response: ServerResponse, index: number) => void): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers };
      seen.push(entry);
      answer(entry, response, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

describe('transport rules', () => {
  const servers: Server[] = [];
  const serve = async (answer: Parameters<typeof scriptedServer>[0]) => {
    const scripted = await scriptedServer(answer);
    servers.push(scripted.server);
    return scripted;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a GET follows a same-origin redirect with the same headers; a write is never redirected', async () => {
    const peer = await serve((request, response) => {
      if (request.url === '/old') return json(response, 307, {}, { Location: '/new' });
      if (request.url === '/new') return json(response, 200, { moved: true });
      return json(response, 308, {}, { Location: '/elsewhere' });
    });
    const client = new CoreClient(peer.url, { token: staticToken('t') });
    expect(await client.get('/old')).toEqual({ moved: true });
    expect(peer.seen[1]!.headers.authorization).toBe('Bearer t');
    const write = await client.send('POST', '/write', { body: {} }).catch((e: unknown) => e);
    expect(write).toBeInstanceOf(CoreTransportError);
    expect((write as Error).message).toContain('the request body is lost on redirect');
  });

  it('refuses a redirect to another origin', async () => {
    const other = await serve((_request, response) => json(response, 200, { leaked: true }));
    const peer = await serve((_request, response) => json(response, 302, {}, { Location: `${other.url}/x` }));
    const error = await new CoreClient(peer.url, { token: staticToken('t') }).get('/x').catch((e: unknown) => e);
    expect((error as Error).message).toContain(`the server redirects to ${other.url} — set it in --server`);
    expect(other.seen).toHaveLength(0);
  });

  it('retries a 401 once, with the same Idempotency-Key, only for a renewable credential', async () => {
    const peer = await serve((request, response, index) =>
      index % 2 === 0 ? json(response, 401, { error: { code: 'invalid_credentials', message: 'expired' } }) : json(response, 200, { ok: request.headers.authorization }));
    let token = 'old';
    const renewable: TokenProvider = { token: async () => token, renew: async () => void (token = 'new') };
    expect(await new CoreClient(peer.url, { token: renewable }).send('POST', '/x', { body: {} })).toEqual({ ok: 'Bearer new' });
    expect(peer.seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(peer.seen[1]!.headers['idempotency-key']).toBe(peer.seen[0]!.headers['idempotency-key']);

    const error = await new CoreClient(peer.url, { token: staticToken('static') }).get('/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(peer.seen).toHaveLength(3);
    expect(peer.seen[2]!.headers['idempotency-key']).toBeUndefined();
  });

  it('sends once more when a reused connection is closed before any answer, and only once', async () => {
    const flaky = await serve((request, response, index) => (index === 0 ? response.socket?.destroy() : json(response, 200, { key: request.headers['idempotency-key'] })));
    const client = new CoreClient(flaky.url, { token: staticToken('t') });
    const answer = await client.send<{ key: string }>('POST', '/x', { body: {} });
    expect(answer.key).toBe(flaky.seen[0]!.headers['idempotency-key']);
    expect(flaky.seen).toHaveLength(2);
    const dead = await serve((_request, response) => response.socket?.destroy());
    await expect(new CoreClient(dead.url, { token: staticToken('t') }).get('/x')).rejects.toBeInstanceOf(CoreTransportError);
    expect(dead.seen).toHaveLength(2);
  });

  it('keeps where an answer writes an integral number as a float, and only numbers count', async () => {
    const peer = await serve((request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(request.url === '/float' ? '{"when": "data.amount > 100.0", "limit": 100.0, "n": [1, 2e3]}' : '{"when": "data.amount > 100.0 and \\"1e3\\"", "n": 3}');
    });
    const client = new CoreClient(peer.url, { token: staticToken('t') });
    const floating = await client.call('GET', '/float');
    expect(floating.body).toEqual({ when: 'data.amount > 100.0', limit: 100, n: [1, 2000] });
    expect([...floating.floats].sort()).toEqual(['/limit', '/n/1']);
    const plain = await client.call('GET', '/plain');
    expect(plain.body).toEqual({ when: 'data.amount > 100.0 and "1e3"', n: 3 });
    expect([...plain.floats]).toEqual([]);
  });

  it('gives up on a core that does not answer', async () => {
    const peer = await serve(() => undefined);
    const error = await new CoreClient(peer.url, { token: staticToken('t'), timeoutMs: 200 }).get('/slow').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreTransportError);
    expect((error as Error).message).toContain('no answer in time');
  });
});
