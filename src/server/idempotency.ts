/**
 * The core's write path (compat-core-packages §1): a write may carry an `Idempotency-Key`. The first use runs
 * the command and stores its answer in the same transaction as its writes; the same key with the same
 * request gets that answer again (`Idempotency-Replayed: true`); the same key with another request is `409
 * idempotency_key_reused`. A command that fails is not stored, so the key may be used again.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { conflict, unprocessable } from './errors.js';
import { compactJson } from '../json/canonical.js';
import { sha256Hex } from '../json/digest.js';
import type { Reply } from './route.js';
import type { Store } from './store.js';

const MAX_KEY_LENGTH = 200;

export interface IdempotentWrite {
  key: string;
  /** Method, path (without the query) and the validated request, whatever its member order or whitespace. */
  fingerprint: string;
}

/** The key and fingerprint of a write, or undefined when it carries no key; a key that is empty or too long is refused. */
export function idempotentWrite(headers: IncomingHttpHeaders, method: string, pathname: string, body: unknown): IdempotentWrite | undefined {
  const sent = headers['idempotency-key'];
  if (sent === undefined) return undefined;
  const key = (Array.isArray(sent) ? sent[0]! : sent).trim();
  if (key === '' || key.length > MAX_KEY_LENGTH) {
    throw unprocessable('invalid_idempotency_key', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, { length: key.length });
  }
  const fingerprint = sha256Hex(`${method} ${pathname}\n${compactJson(body ?? null)}`);
  return { key, fingerprint };
}

/** The stored answer of this write again, or undefined when the key is new; the key of another request is refused. */
export function replayed(store: Store, write: IdempotentWrite): Reply | undefined {
  const stored = store.storedReply(write.key);
  if (!stored) return undefined;
  if (stored.requestHash !== write.fingerprint) {
    throw conflict('idempotency_key_reused', `Idempotency-Key ${write.key} was used for a different request`, { key: write.key });
  }
  return { status: stored.status, body: stored.body, headers: { ...stored.headers, 'Idempotency-Replayed': 'true' } };
}

/** Keeps a successful answer under its key (inside the transaction of its writes). */
export function remember(store: Store, write: IdempotentWrite, reply: Reply): void {
  store.storeReply(write.key, { requestHash: write.fingerprint, status: reply.status ?? 200, body: reply.body, headers: reply.headers ?? {} });
}
