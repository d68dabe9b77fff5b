import { randomUUID, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ContractError, CoreError, errorBody, invalidRequest } from './errors.js';
import { idempotentWrite, remember, replayed } from './idempotency.js';
import { openApiDocument } from './openapi.js';
import { type Api, type CompiledRoute, type Reply, type Route, type RouteContext, compileRoute, parameterErrors } from './route.js';
import { loadBundleSupport } from './routes/bundles.js';
import { ensureBuiltInTaskType } from './routes/catalog.js';
import { ROUTES } from './routes/index.js';
import type { Seed } from '../contract/seed.js';
import { applySeed } from './seed.js';
import type { CoreState, PackageTester } from './route.js';
import { Store } from './store.js';
import { contractCheck, schemaCheck } from './validate.js';
import { DEFAULT_CORE_VERSION } from '../contract/version.js';
import { runScenarios } from './package-tests.js';

export { DEFAULT_CORE_VERSION };

/** Each service names a bad token its own way (compat-package-sdk-install §6.1, compat-kernos §4). */
const UNAUTHORIZED_CODE: Record<Api, string> = { core: 'invalid_credentials', admin: 'invalid_credentials', notifications: 'invalid_token', kernos: 'unauthorized' };


/** Package files may be up to 1000 × 1 MB; a request beyond this is refused without being kept. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** How much of an oversized body is read and dropped so that the client sees the `413`. */
const MAX_DRAINED_BYTES = 4 * MAX_BODY_BYTES;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A UTF-16 surrogate without its other half: what a `\ud800` escape makes, and no Unicode text holds. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface CoreServerOptions {
  dataDir: string;
  token: string;
  /** `info.version` of /openapi.json (default 0.10.0). */
  version?: string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  seed?: Seed;
  /** The engine that runs the scenarios of `POST /packages:test` (default: the sandbox's). */
  packageTester?: PackageTester;
}

export interface RunningCore {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  token: string;
  dataDir: string;
  version: string;
  stop(): Promise<void>;
}

/** Starts the local core: opens (or creates) the store under `dataDir` and listens on loopback. */
export async function startCoreServer(options: CoreServerOptions): Promise<RunningCore> {
  const store = Store.open(options.dataDir);
  try {
    if (options.seed) applySeed(store, options.seed);
    ensureBuiltInTaskType(store);
    const state: CoreState = {
      version: options.version ?? DEFAULT_CORE_VERSION,
      dataDir: options.dataDir,
      packageTester: options.packageTester ?? runScenarios,
      bundles: loadBundleSupport(options.dataDir),
    };
    const handler = createDispatcher(store, state, options.token);
    const server = createServer((req, res) => void handler(req, res));
    server.keepAliveTimeout = 5_000;
    await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return {
      url: `http://${host}:${address.port}`,
      token: options.token,
      dataDir: options.dataDir,
      version: state.version,
      stop: () => stop(server, store),
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stop(server: Server, store: Store): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      store.close();
      resolve();
    });
    server.closeIdleConnections();
  });
}

interface Matched {
  compiled: CompiledRoute;
  params: Record<string, string>;
}

/** The request pipeline: auth, route, parameters, body, validation, idempotency, one transaction, reply. */
export function createDispatcher(store: Store, state: CoreState, token: string): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const compiled = ROUTES.map(compileRoute).sort((a, b) => b.specificity - a.specificity);
  const openapi = JSON.stringify(openApiDocument(ROUTES, state.version));
  const expectedAuth = Buffer.from(`Bearer ${token}`);

  return async (req, res) => {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://core.local');
    const api = apiOf(url.pathname);
    try {
      if (!authorized(req, expectedAuth)) {
        throw new CoreError(401, UNAUTHORIZED_CODE[api], 'a valid bearer token is required (Authorization: Bearer <token>)');
      }
      if (url.pathname === '/openapi.json' && req.method === 'GET') {
        send(res, { status: 200, body: undefined }, openapi);
        return;
      }
      const matched = match(compiled, req.method ?? 'GET', url.pathname);
      const rawBody = await readBody(req);
      const reply = await handle(matched, req, url, rawBody, store, state);
      send(res, reply);
    } catch (error) {
      send(res, failure(error, api, requestId));
    }
  };
}

function apiOf(pathname: string): Api {
  if (pathname.startsWith('/v1/')) return 'kernos';
  if (pathname.startsWith('/api/v1/notification-rules')) return 'notifications';
  if (pathname.startsWith('/admin/')) return 'admin';
  return 'core';
}

function authorized(req: IncomingMessage, expected: Buffer): boolean {
  const sent = Buffer.from(req.headers.authorization ?? '');
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

function match(compiled: readonly CompiledRoute[], method: string, pathname: string): Matched {
  let pathMatched = false;
  for (const candidate of compiled) {
    const found = candidate.pattern.exec(pathname);
    if (!found) continue;
    pathMatched = true;
    if (candidate.route.method !== method) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, i) => {
      params[name] = decodeParam(found[i + 1]!);
    });
    return { compiled: candidate, params };
  }
  if (pathMatched) throw new CoreError(405, 'method_not_allowed', `${method} is not allowed on ${pathname}`);
  throw new CoreError(404, 'not_found', `no route ${method} ${pathname}`);
}

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new CoreError(400, 'invalid_path', `the path segment '${text}' is not valid percent-encoding`);
  }
}

/**
 * The body as text. One over the limit is answered `413` — after the rest is read and dropped, since a client
 * still sending would see its connection reset instead of the answer (up to a bound, past which the connection
 * is cut) — and bytes that are not UTF-8 are `400`, not replaced with U+FFFD and stored.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAINED_BYTES) req.destroy();
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0; // over the limit: only counted from here
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return reject(new CoreError(413, 'payload_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`));
      try {
        resolve(STRICT_UTF8.decode(Buffer.concat(chunks)));
      } catch {
        reject(new CoreError(400, 'invalid_json', 'the request body is not UTF-8 text'));
      }
    });
    req.on('error', reject);
  });
}

async function handle(matched: Matched, req: IncomingMessage, url: URL, rawBody: string, store: Store, state: CoreState): Promise<Reply> {
  const { route } = matched.compiled;
  const body = parseBody(route, rawBody);
  if (isCoreApi(route.api)) {
    const errors = [...parameterErrors(route, url.searchParams, matched.params), ...(route.method === 'GET' ? [] : contractErrors(route, body))];
    if (errors.length > 0) throw invalidRequest(errors);
  } else if (route.method !== 'GET') {
    validateBody(route, body);
  }
  const ctx: RouteContext = { params: matched.params, query: url.searchParams, body, rawBody, headers: req.headers, store, state };
  if (route.method === 'GET') return route.handle(ctx);
  const write = route.idempotent === false || route.api === 'kernos' ? undefined : idempotentWrite(req.headers, route.method, url.pathname, body);
  const earlier = write && replayed(store, write);
  if (earlier) return earlier;
  if (route.prepare) ctx.prepared = await route.prepare(ctx);
  if (route.transactional === false) return route.handle(ctx);
  const run = (): Reply => {
    // Another request with the key may have finished while this one prepared.
    const again = write && replayed(store, write);
    if (again) return again;
    const reply = route.handle(ctx);
    if (reply instanceof Promise) throw new Error(`${route.method} ${route.path}: a transactional handler must be synchronous`);
    if (write) remember(store, write, reply);
    return reply;
  };
  return route.rolledBack ? store.rolledBack(run) : store.transaction(run);
}

/** The core's own routes (and the admin route beside them) answer contract errors with `400 invalid_request`. */
function isCoreApi(api: Api): boolean {
  return api === 'core' || api === 'admin';
}

function parseBody(route: Route, rawBody: string): unknown {
  if (rawBody.trim() === '') return undefined;
  const details = route.api === 'kernos' ? {} : { route: route.path };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch (error) {
    throw new CoreError(400, 'invalid_json', `the request body is not JSON: ${(error as Error).message}`, details);
  }
  const broken = loneSurrogateAt(body);
  if (broken !== undefined) throw new CoreError(400, 'invalid_json', `the request body is not Unicode text: a lone surrogate (\\uD800–\\uDFFF) at ${broken}`, details);
  return body;
}

/** The JSON Pointer of the first key or string holding a lone surrogate, or undefined (without recursion: bodies may nest deep). */
function loneSurrogateAt(body: unknown): string | undefined {
  const pending: [unknown, string][] = [[body, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, pointer] = next;
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) return pointer || '/';
    if (value === null || typeof value !== 'object') continue;
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (LONE_SURROGATE.test(key)) return at;
      pending.push([item, at]);
    }
  }
  return undefined;
}

/** Where the body of a request to one of the core's routes breaks its request model. */
function contractErrors(route: Route, body: unknown): ContractError[] {
  if (!route.request) return [];
  if (body === undefined) return [{ loc: 'body', message: 'Field required' }];
  const errors = contractCheck(route.request, body, 'body');
  return errors.length === 0 && route.validate ? route.validate(body) : errors;
}

/** The Kernos and notification-service routes check bodies their own way. */
function validateBody(route: Route, body: unknown): void {
  if (!route.request) return;
  if (route.api === 'kernos') {
    // Kernos maps every body that does not deserialize into its struct to 400 invalid_json (compat-kernos §4).
    const [problem] = body === undefined ? [{ message: 'a JSON body is required' }] : schemaCheck(route.request)(body);
    if (problem) throw new CoreError(400, 'invalid_json', `the request body does not match: ${problem.message}`);
    return;
  }
  const problems = body === undefined ? [{ path: '', message: 'body is required' }] : schemaCheck(route.request)(body);
  if (problems.length > 0) throw new CoreError(422, 'validation_error', problems[0]!.message, { errors: problems });
}

function failure(error: unknown, api: Api, requestId: string): Reply {
  if (error instanceof CoreError) return { status: error.status, body: errorBody(error, api === 'kernos' ? undefined : requestId) };
  process.stderr.write(`core: internal error (request ${requestId}): ${(error as Error).stack ?? String(error)}\n`);
  const internal = new CoreError(500, 'internal_error', 'the local core failed on this request; please report it with the server log');
  return { status: 500, body: errorBody(internal, api === 'kernos' ? undefined : requestId) };
}

function send(res: ServerResponse, reply: Reply, preRendered?: string): void {
  if (res.headersSent) return;
  const text = preRendered ?? reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...reply.headers });
  res.end(text);
}
