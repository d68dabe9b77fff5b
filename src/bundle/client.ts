/**
 * Client of the control plane's bundle routes (compat-kernos §4): `POST /v1/bundles`, `GET /v1/bundles`,
 * `GET /v1/bundles/{id}`. A bearer token (`KERNOS_TOKEN`) goes only over https or to a loopback address;
 * the error envelope `{"error": {code, message, details}}` becomes a `Refusal` with the same code.
 */
import { existsSync } from 'node:fs';
import { CoreClient, CoreHttpError, CoreTransportError, isSafeTransport, staticToken } from '../client/client.js';
import { Refusal } from '../fs/refusal.js';
import { defaultSignatureFile, readJsonFile } from './file.js';
import { noLocalCore, type LocalCoreStarter } from '../contract/local-core.js';
import { isJsonObject, type JsonObject, parseJson } from '../json/parse.js';

export const DEFAULT_SERVER = 'http://127.0.0.1:7401';

export interface Connection {
  /** Base URL without a trailing `/v1`. */
  base: string;
  token?: string;
}

/** https anywhere; plain http only to this machine, so a token never crosses a network in clear. */
export function connection(server: string | undefined, token: string | undefined): Connection {
  const text = server ?? process.env.KERNOS_SERVER ?? DEFAULT_SERVER;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Refusal('usage', `--server ${text} is not a URL (expected https://host[:port] or http://127.0.0.1:port)`, { exitCode: 2 });
  }
  if (!isSafeTransport(url)) {
    throw new Refusal('usage', `--server ${text}: use https, or http only for a loopback address (127.0.0.1, localhost, [::1])`, { exitCode: 2 });
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
  const bearer = token ?? process.env.KERNOS_TOKEN;
  return bearer ? { base, token: bearer } : { base };
}

/** One request through the core client's transport; the server's error becomes a `Refusal` with its code. */
export async function request<T>(conn: Connection, method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; body: T }> {
  const client = new CoreClient(conn.base, { token: staticToken(conn.token) });
  const answer = await transported(() => client.call<T>(method, `/v1${path}`, { idempotent: false, ...(body === undefined ? {} : { rawBody: body }) }));
  return { status: answer.status, body: answer.body };
}

/** The control plane's refusal, or no answer at all, as a `BundleFailure` with its code. */
async function transported<T>(exchange: () => Promise<T>): Promise<T> {
  try {
    return await exchange();
  } catch (error) {
    if (error instanceof CoreHttpError) throw new Refusal(error.code, error.reason, { exitCode: 1, details: { status: error.status, ...error.details } });
    if (error instanceof CoreTransportError) throw new Refusal('server_unreachable', `cannot reach the control plane: ${error.message}`, { exitCode: 2 });
    throw error;
  }
}

export interface ApplyResult {
  bundle_id: string;
  name: string;
  version: string;
  /** 201 stored; 200 the identical bundle was already there. */
  status: number;
}

/**
 * `bundle apply`: sends the bundle and its signature as written — the body is assembled from the two
 * texts, so the server parses the same number lexemes that were signed.
 */
export async function applyBundle(options: { file: string; sig?: string; conn: Connection }): Promise<ApplyResult> {
  const sigFile = options.sig ?? defaultSignatureFile(options.file);
  if (!existsSync(sigFile)) {
    throw new Refusal('usage', `no signature file ${sigFile}; sign the bundle first with package-sdk bundle sign`, { exitCode: 2 });
  }
  const bundle = readJsonFile(options.file, 'bundle');
  const signature = readJsonFile(sigFile, 'signature file');
  const body = `{"bundle":${bundle.text},"signature":${signature.text}}`;
  const answer = await request<Omit<ApplyResult, 'status'>>(options.conn, 'POST', '/bundles', body);
  return { ...answer.body, status: answer.status };
}

export interface BundleListing {
  bundle_id: string;
  name: string;
  version: string;
  department: string | null;
  workflows: string[];
  created_at: string;
}

export async function listBundles(conn: Connection): Promise<BundleListing[]> {
  return (await request<BundleListing[]>(conn, 'GET', '/bundles')).body;
}

/**
 * `GET /v1/bundles/{id}`: the stored bundle with its signature, read losslessly — its numbers keep the form
 * they were signed in (`7250.0`, `1e16`, `-0`), so the bundle shown verifies with its signature.
 */
export async function showBundle(conn: Connection, id: string): Promise<JsonObject> {
  const client = new CoreClient(conn.base, { token: staticToken(conn.token) });
  const { text } = await transported(() => client.callText('GET', `/v1/bundles/${encodeURIComponent(id)}`, { idempotent: false }));
  const shown = parseJson(text).value;
  if (!isJsonObject(shown)) throw new Refusal('server_invalid_answer', `the control plane answered GET /v1/bundles/${id} with something other than an object`, { exitCode: 1 });
  return shown;
}

/**
 * Runs `use` against `--server`: a URL, or `local` for the embedded core on a loopback port with its
 * data (and trust store, `keys/trusted/`) in `.package-sdk/core`, stopped afterwards.
 */
export async function withServer<T>(
  server: string | undefined, token: string | undefined, use: (conn: Connection) => Promise<T>, localCore?: LocalCoreStarter,
): Promise<T> {
  if (server !== 'local') return use(connection(server, token));
  if (localCore === undefined) throw noLocalCore();
  const core = await localCore(token === undefined ? {} : { token });
  try {
    return await use(connection(core.url, core.token));
  } finally {
    await core.stop();
  }
}
