import type { IncomingHttpHeaders } from 'node:http';
import { type ContractError, CoreError, invalidRequest } from './errors.js';
import type { Row, Store } from './store.js';
import type { TrustedKey } from '../bundle/index.js';

/**
 * Runs the scenarios of `POST /packages:test` once the core's checks found no error: the sandbox (package-sdk's
 * process engine) unless a caller plugs in another.
 */
export type PackageTester = (run: ScenarioRun) => Promise<ScenarioResults>;

/** What the engine runs: the package's files as sent, and the test files selected (all of them by default). */
export interface ScenarioRun {
  files: { path: string; content: string }[];
  tests: string[];
  workspaceId: string | null;
}

/** What the engine gives back for the answer of `POST /packages:test`. */
export interface ScenarioResults {
  tests: Record<string, unknown>[];
  coverage: Record<string, unknown>[];
  ruleCoverage: Record<string, unknown>[];
  taskTypeCoverage: Record<string, unknown>[];
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
  /** The body already rendered as JSON text (a stored document answered byte for byte); `body` is then ignored. */
  raw?: string;
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
  /** What `Route.prepare` computed before the transaction. */
  prepared?: unknown;
}

export interface Route {
  method: Method;
  /** OpenAPI path template, e.g. `/api/v1/task-types/{id}:deprecate`. */
  path: string;
  api: Api;
  summary: string;
  /** Component schema of the request body; requests are validated against it. */
  request?: string;
  /** What the request model checks beyond its schema (the core's model validators), once the schema passed. */
  validate?(body: unknown): ContractError[];
  /** Component schema of the success body (documentation and contract tests). */
  response?: string;
  /** Success status, 200 by default. */
  status?: number;
  /** Another success status with the same body (200 for a write that changed nothing). */
  alsoStatus?: number;
  /** The query parameters the route takes; on the core's routes any other is refused (400). */
  query?: readonly QueryParameter[];
  /** Path parameters the route types (a value of another form is refused with 400), by name. */
  params?: Readonly<Record<string, 'uuid'>>;
  /** False for a POST the core does not run through its write path: an Idempotency-Key is ignored there. */
  idempotent?: boolean;
  /** False for a write that may wait on something outside the store (it then runs outside a transaction). */
  transactional?: boolean;
  /** True for a route that tries its writes and always rolls them back (`/packages:plan`). */
  rolledBack?: boolean;
  /** Work done before the transaction (reading and checking files): its result is `ctx.prepared`. */
  prepare?(ctx: RouteContext): Promise<unknown>;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}

export interface QueryParameter {
  name: string;
  type: 'string' | 'integer' | 'boolean';
  description?: string;
  minimum?: number;
  maximum?: number;
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
  { name: 'limit', type: 'integer', minimum: 1, maximum: 500, description: '1–500, default 100' },
  { name: 'cursor', type: 'string', description: 'nextCursor of the previous page' },
];

/** Cursor pagination as the core does it: `{items, nextCursor}`; the cursor is an offset, opaque to clients. */
export function page<T>(items: readonly T[], query: URLSearchParams): { items: T[]; nextCursor: string | null } {
  const limit = integerQuery(query, 'limit', 100);
  const cursor = query.get('cursor');
  let offset = 0;
  if (cursor) {
    offset = Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
    if (!Number.isInteger(offset) || offset < 0) throw invalidRequest([{ loc: 'query.cursor', message: 'Input should be a cursor this core gave' }]);
  }
  const slice = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? Buffer.from(String(offset + limit), 'utf8').toString('base64url') : null;
  return { items: slice, nextCursor: next };
}

/** The core's query booleans (pydantic's): these words in any case, and nothing else. */
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true, t: true, yes: true, y: true, on: true, '1': true,
  false: false, f: false, no: false, n: false, off: false, '0': false,
};

/** The contract errors of the query parameters and typed path parameters of a request to `route`. */
export function parameterErrors(route: Route, query: URLSearchParams, params: Readonly<Record<string, string>>): ContractError[] {
  const errors: ContractError[] = [];
  const declared = new Map((route.query ?? []).map((parameter) => [parameter.name, parameter]));
  for (const [name, value] of query) {
    const parameter = declared.get(name);
    const problem = parameter === undefined ? 'Unknown query parameter' : queryProblem(parameter, value);
    if (problem !== undefined) errors.push({ loc: `query.${name}`, message: problem });
  }
  for (const [name, type] of Object.entries(route.params ?? {})) {
    if (type === 'uuid' && !UUID.test(params[name] ?? '')) errors.push({ loc: `path.${name}`, message: 'Input should be a valid UUID' });
  }
  return errors;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function queryProblem(parameter: QueryParameter, value: string): string | undefined {
  switch (parameter.type) {
    case 'boolean':
      return value.toLowerCase() in BOOLEAN_WORDS ? undefined : 'Input should be a valid boolean, unable to interpret input';
    case 'integer': {
      if (!/^-?\d+$/.test(value)) return 'Input should be a valid integer, unable to parse string as an integer';
      const n = Number.parseInt(value, 10);
      if (parameter.minimum !== undefined && n < parameter.minimum) return `Input should be greater than or equal to ${parameter.minimum}`;
      if (parameter.maximum !== undefined && n > parameter.maximum) return `Input should be less than or equal to ${parameter.maximum}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

export function integerQuery(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const problem = queryProblem({ name, type: 'integer' }, text);
  if (problem !== undefined) throw invalidRequest([{ loc: `query.${name}`, message: problem }]);
  return Number.parseInt(text, 10);
}

export function booleanQuery(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  if (text === null) return false;
  const value = BOOLEAN_WORDS[text.toLowerCase()];
  if (value === undefined) throw invalidRequest([{ loc: `query.${name}`, message: 'Input should be a valid boolean, unable to interpret input' }]);
  return value;
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
