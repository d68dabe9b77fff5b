import type { IncomingHttpHeaders } from 'node:http';
import { CoreError } from './errors.js';
import type { Row, Store } from './store.js';
import type { TrustedKey } from '../bundle/index.js';

/**
 * Runs a package's tests for `POST /packages:test`: the sandbox (package-sdk's process engine) unless a
 * caller plugs in another.
 */
export type PackageTester = (request: PackageTestRequest, ctx: RouteContext) => Promise<Reply>;

export interface PackageTestRequest {
  package: { files: { path: string; content: string }[] };
  tests?: string[];
  workspaceId?: string | null;
  checkOnly: boolean;
}

/** What every route may read besides the store: fixed for the life of a server. */
export interface CoreState {
  /** `info.version` of /openapi.json — the control-plane version packages' `engines` are checked against. */
  version: string;
  dataDir: string;
  packageTester: PackageTester;
  /** Set when the bundle library loaded; the Kernos routes answer 501 without it. */
  bundles?: BundleSupport;
}

/** The bundle library as the Kernos routes use it; absent when it did not load (those routes answer 501). */
export interface BundleSupport {
  controlPlaneKey: TrustedKey;
  trusted(): TrustedKey[];
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Which family a route belongs to: it decides the error envelope and the OpenAPI tag. */
export type Api = 'core' | 'notifications' | 'kernos' | 'admin';

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (undefined when none was sent). */
  body: unknown;
  /** The body as sent, for routes whose hashes depend on the exact bytes (bundles). */
  rawBody: string;
  headers: IncomingHttpHeaders;
  store: Store;
  state: CoreState;
}

export interface Route {
  method: Method;
  /** OpenAPI path template, e.g. `/api/v1/task-types/{id}:deprecate`. */
  path: string;
  api: Api;
  summary: string;
  /** Component schema of the request body; requests are validated against it. */
  request?: string;
  /** Component schema of the success body (documentation and contract tests). */
  response?: string;
  /** Success status, 200 by default. */
  status?: number;
  /** Another success status with the same body (200 for a write that changed nothing). */
  alsoStatus?: number;
  query?: readonly QueryParameter[];
  /** Refuse a write without an Idempotency-Key (the core's `/packages:plan|apply`). */
  requiresIdempotencyKey?: boolean;
  /** False for a write that may wait on something outside the store (it then runs outside a transaction). */
  transactional?: boolean;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}

export interface QueryParameter {
  name: string;
  type: 'string' | 'integer' | 'boolean';
  description?: string;
}

export interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  /** More literal characters first, so `/agents/{key}:retire` wins over `/agents/{key}`. */
  specificity: number;
}

export function compileRoute(route: Route): CompiledRoute {
  const names: string[] = [];
  let literal = 0;
  const source = route.path.replace(/\{(\w+)\}|[^{]+/g, (part, name: string | undefined) => {
    if (name) {
      names.push(name);
      return '([^/]+?)';
    }
    literal += part.length;
    return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  });
  return { route, pattern: new RegExp(`^${source}$`), names, specificity: literal };
}

export const LIST_QUERY: readonly QueryParameter[] = [
  { name: 'limit', type: 'integer', description: '1–500, default 100' },
  { name: 'cursor', type: 'string', description: 'nextCursor of the previous page' },
];

/** Cursor pagination as the core does it: `{items, nextCursor}`; the cursor is an offset, opaque to clients. */
export function page<T>(items: readonly T[], query: URLSearchParams): { items: T[]; nextCursor: string | null } {
  const limit = integerQuery(query, 'limit', 100);
  if (limit < 1 || limit > 500) throw new CoreError(422, 'validation_error', 'limit must be between 1 and 500', { parameter: 'limit' });
  const cursor = query.get('cursor');
  let offset = 0;
  if (cursor) {
    offset = Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
    if (!Number.isInteger(offset) || offset < 0) throw new CoreError(422, 'validation_error', 'cursor is not one this core gave', { parameter: 'cursor' });
  }
  const slice = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? Buffer.from(String(offset + limit), 'utf8').toString('base64url') : null;
  return { items: slice, nextCursor: next };
}

export function integerQuery(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  if (!/^-?\d+$/.test(text)) throw new CoreError(422, 'validation_error', `${name} must be an integer`, { parameter: name });
  return Number.parseInt(text, 10);
}

export function booleanQuery(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  if (text === null || text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new CoreError(422, 'validation_error', `${name} must be true or false`, { parameter: name });
}

/** `"<prefix>-<version>"`, with the quotes, as the installer sends it in If-Match. */
export function etag(prefix: string, version: number): string {
  return `"${prefix}-${version}"`;
}

/**
 * Optimistic concurrency: a write to a versioned row must name the version it read. A missing header is
 * refused (428) so that a client cannot overwrite a change it never saw; a stale one gets 412.
 */
export function requireIfMatch(ctx: RouteContext, expected: string): void {
  const sent = ctx.headers['if-match'];
  if (sent === undefined) throw new CoreError(428, 'precondition_required', `If-Match is required (the current ETag is ${expected})`);
  const values = String(sent).split(',').map((v) => v.trim());
  if (!values.includes(expected) && !values.includes('*')) {
    throw new CoreError(412, 'precondition_failed', `the object was changed by someone else: If-Match ${sent}, current ${expected}`, { current: expected });
  }
}

export function findOr404<T extends Row>(row: T | undefined, what: string): T {
  if (!row) throw new CoreError(404, 'not_found', `${what} not found`);
  return row;
}

/** A body the route's schema already validated as an object. */
export function bodyOf<T>(ctx: RouteContext): T {
  return (ctx.body ?? {}) as T;
}
