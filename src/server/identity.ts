import { randomUUID } from 'node:crypto';

/** The one tenant of a local core, and the principal that every write is made by (there is one token). */
export const TENANT_ID = '00000000-0000-4000-8000-000000000001';
export const ADMIN_PRINCIPAL_ID = '00000000-0000-4000-8000-000000000002';

export function newId(): string {
  return randomUUID();
}

export function now(): string {
  return new Date().toISOString();
}
