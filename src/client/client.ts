/**
 * Client of the core's HTTP API (compat-package-sdk-install §6.1): the rules every call of plan and apply
 * follows. The base URL is https, or http to this machine only, and never carries credentials; the
 * bearer token is asked for before each request; writes carry a fresh `Idempotency-Key`; lists are read
 * page by page; redirects are followed only for GET/HEAD to the same origin; a 401 is retried once, and
 * only for a credential that can be renewed; the core's error envelope becomes a `CoreHttpError` whose
 * message a person can read.
 */
import { nodeCrypto } from '../fs/node-crypto.js';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { parseJson } from '../load/json.js';

/** An answer of the transport: its status, where it redirects, and its body read once. */
interface Answered {
  status: number;
  location: string | undefined;
  text(): Promise<string>;
}

/** Connections kept alive between the requests of one run (a plan sends dozens); idle ones never hold the process. */
const HTTP_AGENT = new Agent({ keepAlive: true });

/** The reference's pattern of a stand address (§4.2): https anywhere, http only to loopback, no `@`. */
export const SERVER_PATTERN = /^(https:\/\/[^\s/@]+(\/\S*)?|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?(\/\S*)?)$/;

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
const PAGE_SIZE = 100;
/** The codes of a 401 that a fresh credential may cure (core, and the platform-auth services). */
const RENEWABLE_401 = new Set(['invalid_credentials', 'invalid_token']);

/** A bad `--server`: a usage problem (exit 2), found before any request. */
export class ServerAddressError extends Error {
  readonly code = 'server_invalid';
}

/** The core answered outside 2xx: its status, its error code and the envelope's details. */
export class CoreHttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly code: string,
    readonly reason: string,
    readonly details: Record<string, unknown>,
  ) {
    super(`${method} ${path}: HTTP ${status} ${code}: ${reason}`);
  }
}

/** No answer at all: refused connection, reset, timeout, a refused redirect. */
export class CoreTransportError extends Error {
  readonly code = 'core_unreachable';
}

/**
 * The stand address with its trailing `/` removed, checked as the reference checks it; else a
 * `ServerAddressError` that says what is expected.
 */
export function serverBase(server: string): string {
  const base = server.replace(/\/+$/, '');
  if (!SERVER_PATTERN.test(base)) {
    throw new ServerAddressError(`core address '${server}': expected https://… (http only for localhost), without credentials`);
  }
  return base;
}

/** True for https anywhere, and for plain http to a loopback address: a token never crosses a network in clear. */
export function isSafeTransport(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname));
}

/** Where the bearer token comes from. A static token (`CP_TOKEN`) has no `renew`: a 401 is final. */
export interface TokenProvider {
  token(): Promise<string | undefined>;
  renew?(): Promise<void>;
}

export function staticToken(token: string | undefined): TokenProvider {
  return { token: async () => token };
}

export interface CoreClientOptions {
  token: TokenProvider;
  timeoutMs?: number;
}

export interface RequestOptions {
  body?: unknown;
  /** A body already serialised, sent byte for byte (a signed document keeps its number lexemes). */
  rawBody?: string;
  /** Query parameters, in the order given. */
  query?: readonly (readonly [string, string | number | boolean])[];
  /** A fresh key for a write (default for every non-GET); `false` for a dry run the core treats as a read. */
  idempotent?: boolean;
}

/** A parsed answer, with the pointers of numbers written as floats (`1.0`), which hashes must keep. */
export interface CoreAnswer<T> {
  status: number;
  body: T;
  floats: ReadonlySet<string>;
}

export class CoreClient {
  /** Requests sent (retries and followed redirects included), for progress and the bench. */
  requests = 0;
  private readonly origin: string;

  constructor(
    readonly base: string,
    private readonly options: CoreClientOptions,
  ) {
    this.origin = new URL(base).origin;
  }

  async get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return (await this.call<T>('GET', path, { ...(query ? { query } : {}) })).body;
  }

  /** A GET whose 404 means "absent". */
  async find<T>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (error) {
      if (error instanceof CoreHttpError && error.status === 404) return undefined;
      throw error;
    }
  }

  async send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, options: RequestOptions & { headers?: Record<string, string> } = {}): Promise<T> {
    return (await this.call<T>(method, path, options)).body;
  }

  /** Every item of a paginated list: `<filters>&limit=100[&cursor=…]` until `nextCursor` is empty. */
  async list<T>(path: string, filters: readonly (readonly [string, string | boolean])[] = []): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const query: (readonly [string, string | number | boolean])[] = [...filters, ['limit', PAGE_SIZE]];
      if (cursor) query.push(['cursor', cursor]);
      const page = await this.get<{ items?: T[]; nextCursor?: string | null }>(path, query);
      items.push(...(page.items ?? []));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return items;
  }

  /** One request with the transport rules; the answer body parsed (an empty body is `{}`). */
  async call<T>(method: string, path: string, options: RequestOptions & { headers?: Record<string, string> } = {}): Promise<CoreAnswer<T>> {
    const { status, text } = await this.exchangeText(method, path, options);
    return this.answer<T>(method, path, status, text);
  }

  /**
   * One request with the transport rules; a 2xx answer as the text the server sent (for a document whose
   * number forms must survive, such as a signed bundle), any other as a `CoreHttpError`.
   */
  async callText(method: string, path: string, options: RequestOptions & { headers?: Record<string, string> } = {}): Promise<{ status: number; text: string }> {
    const answered = await this.exchangeText(method, path, options);
    if (answered.status < 200 || answered.status >= 300) await this.answer(method, path, answered.status, answered.text);
    return answered;
  }

  private async exchangeText(method: string, path: string, options: RequestOptions & { headers?: Record<string, string> }): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', ...options.headers };
    if ((options.idempotent ?? method !== 'GET') && method !== 'GET') headers['Idempotency-Key'] = nodeCrypto().randomUUID();
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const url = this.urlOf(path, options.query);
    let response = await this.exchange(method, url, headers, body);
    if (response.status === 401 && this.options.token.renew) {
      const text = await response.text();
      if (!RENEWABLE_401.has(errorCode(parseLoose(text)) ?? '')) return { status: response.status, text };
      await this.options.token.renew();
      response = await this.exchange(method, url, headers, body); // the same Idempotency-Key
    }
    return { status: response.status, text: await response.text() };
  }

  private urlOf(path: string, query: RequestOptions['query']): string {
    const search = (query ?? []).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`).join('&');
    return `${this.base}${path}${search ? `?${search}` : ''}`;
  }

  private async exchange(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<Answered> {
    let target = url;
    for (let hop = 0; ; hop++) {
      const token = await this.options.token.token(); // asked each time: a provider may have renewed it
      const sent = token ? { ...headers, Authorization: `Bearer ${token}` } : headers;
      let response: Answered;
      try {
        response = await this.fetchOnce(method, target, sent, body);
      } catch (error) {
        if (!isClosedKeepAlive(error)) throw new CoreTransportError(`${method} ${pathOf(target)}: ${transportReason(error)} (${this.base})`);
        // The server closed an idle kept-alive connection just as it was reused: nothing was processed, and a
        // write carries its Idempotency-Key, so sending it once more is safe.
        try {
          response = await this.fetchOnce(method, target, sent, body);
        } catch (again) {
          throw new CoreTransportError(`${method} ${pathOf(target)}: ${transportReason(again)} (${this.base})`);
        }
      }
      if (response.status < 300 || response.status >= 400 || !response.location) return response;
      const next = new URL(response.location, target);
      await response.text();
      if (next.origin !== this.origin) {
        throw new CoreTransportError(`${method} ${pathOf(target)}: HTTP ${response.status}: the server redirects to ${next.origin} — set it in --server`);
      }
      if (method !== 'GET' && method !== 'HEAD') {
        throw new CoreTransportError(`${method} ${pathOf(target)}: HTTP ${response.status}: the request body is lost on redirect — set the exact address in --server`);
      }
      if (hop >= MAX_REDIRECTS) throw new CoreTransportError(`${method} ${pathOf(target)}: too many redirects`);
      target = next.href;
    }
  }

  /**
   * One HTTP exchange through node:http (or node:https), not fetch: a plan is a short process, and fetch's
   * HTTP stack costs more CPU to load than the whole conversation with the core.
   */
  private async fetchOnce(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<Answered> {
    this.requests += 1;
    const target = new URL(url);
    const send = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const message = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(target, { method, headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) },
        ...(target.protocol === 'http:' ? { agent: HTTP_AGENT } : {}) }, resolve);
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { name: 'TimeoutError' })));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    const location = message.headers.location;
    return {
      status: message.statusCode ?? 0,
      location: Array.isArray(location) ? location[0] : location,
      text: () => new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        message.on('data', (chunk: Buffer) => chunks.push(chunk));
        message.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        message.on('error', reject);
      }),
    };
  }

  private async answer<T>(method: string, path: string, status: number, text: string): Promise<CoreAnswer<T>> {
    const parsed = text.trim() === '' ? { value: {}, floats: new Set<string>() } : await parseAnswer(text);
    if (status >= 200 && status < 300) {
      if (parsed === undefined) throw new CoreTransportError(`${method} ${path}: HTTP ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
      return { status, body: parsed.value as T, floats: parsed.floats };
    }
    const value = parsed?.value;
    const envelope = (value as { error?: unknown } | undefined)?.error;
    const message = typeof envelope === 'object' && envelope !== null && typeof (envelope as { message?: unknown }).message === 'string'
      ? (envelope as { message: string }).message
      : text.trim().slice(0, 200) || 'no details';
    const details = (envelope as { details?: unknown } | undefined)?.details;
    throw new CoreHttpError(method, path, status, errorCode(value) ?? `http_${status}`, message,
      typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {});
  }
}

/** The error code wherever the services put it: `{error: {code}}`, `{error: "code"}`, `{code}`, or those under `detail`. */
export function errorCode(body: unknown): string | undefined {
  for (const holder of [body, (body as { detail?: unknown } | null)?.detail]) {
    if (typeof holder !== 'object' || holder === null) continue;
    const { error, code } = holder as { error?: unknown; code?: unknown };
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** A JSON string literal, escapes included. */
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

async function parseAnswer(text: string): Promise<{ value: unknown; floats: ReadonlySet<string> } | undefined> {
  // No integral float can be written without `.0` or an exponent; inside strings (expressions, texts) they are no numbers.
  if (!/\d\.0|\d[eE]/.test(text.replace(STRING_LITERAL, '""'))) {
    const value = parseLoose(text);
    return value === undefined ? undefined : { value, floats: new Set() };
  }
  const { document } = parseJson(text, 'answer');
  return document ? { value: document.value, floats: document.floats } : undefined;
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** A reset of a reused connection before any answer, not a dead server. */
function isClosedKeepAlive(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

function transportReason(error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return 'no answer in time';
  return (error as { code?: string }).code ?? (error as Error).message;
}
