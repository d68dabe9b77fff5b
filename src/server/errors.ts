/**
 * The core answers every failure with one envelope, `{"error": {code, message, details, requestId}}`
 * (compat-package-sdk-install §6.1); the Kernos routes use the same shape without `requestId`
 * (compat-kernos §4). A handler throws a `CoreError`; the dispatcher renders it.
 */
export class CoreError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function notFound(what: string, code = 'not_found'): CoreError {
  return new CoreError(404, code, `${what} not found`);
}

export function conflict(code: string, message: string, details: Record<string, unknown> = {}): CoreError {
  return new CoreError(409, code, message, details);
}

export function unprocessable(code: string, message: string, details: Record<string, unknown> = {}): CoreError {
  return new CoreError(422, code, message, details);
}

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown>; requestId?: string };
}

export function errorBody(error: CoreError, requestId: string | undefined): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message, details: error.details } };
  if (requestId !== undefined) body.error.requestId = requestId;
  return body;
}

/** One place where a request breaks the contract: the dotted location (`body.package.files.0.path`, `query.checkOnly`). */
export interface ContractError {
  loc: string;
  message: string;
}

/** The core reports at most this many contract errors of one request. */
const MAX_CONTRACT_ERRORS = 20;

/**
 * A body, query or path parameter that breaks the request model (compat-core-packages §1): `400
 * invalid_request` with the first 20 errors in `details.errors`.
 */
export function invalidRequest(errors: readonly ContractError[]): CoreError {
  return new CoreError(400, 'invalid_request', 'Request does not match the API contract', { errors: errors.slice(0, MAX_CONTRACT_ERRORS) });
}
