import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Seed, SeedKind } from '../contract/seed.js';
import { ADMIN_PRINCIPAL_ID, TENANT_ID, now } from './identity.js';
import type { Row, Store } from './store.js';

/**
 * The objects a local core cannot create through its API but packages name by id (variables of kind
 * workspace, project, principal, role): `--seed FILE`, JSON or YAML, lists of ids or of objects with an
 * `id` and optional fields (docs/core.md). Seeding is idempotent: an id already stored is left as it is.
 */

const KINDS: readonly SeedKind[] = ['workspaces', 'projects', 'principals', 'roles'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class SeedError extends Error {}

export function readSeed(file: string): Seed {
  let value: unknown;
  try {
    value = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SeedError(`${file}: not a seed file: ${(error as Error).message}`);
  }
  return parseSeed(value, file);
}

export function parseSeed(value: unknown, file = 'seed'): Seed {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new SeedError(`${file}: expected a mapping with ${KINDS.join(', ')}`);
  const seed: Seed = {};
  for (const [name, list] of Object.entries(value as Record<string, unknown>)) {
    if (!KINDS.includes(name as SeedKind)) throw new SeedError(`${file}: unknown seed list '${name}' — expected ${KINDS.join(', ')}`);
    if (!Array.isArray(list)) throw new SeedError(`${file}: ${name} must be a list of ids or objects with an id`);
    seed[name as SeedKind] = list.map((entry, index) => seedEntry(entry, `${file}: ${name}[${index}]`));
  }
  return seed;
}

function seedEntry(entry: unknown, where: string): Record<string, unknown> {
  const object = typeof entry === 'string' ? { id: entry } : entry;
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new SeedError(`${where}: expected an id or an object with an id`);
  const id = (object as { id?: unknown }).id;
  if (typeof id !== 'string' || !UUID.test(id)) throw new SeedError(`${where}: id must be a UUID`);
  return { ...(object as Record<string, unknown>), id: id.toLowerCase() };
}

export function applySeed(store: Store, seed: Seed): void {
  store.transaction(() => {
    for (const kind of KINDS) {
      for (const entry of seed[kind] ?? []) {
        if (store.get(kind, entry.id as string)) continue;
        const row = seededRow(kind, entry);
        store.insert(kind, kind === 'roles' ? (row.slug as string) : row.id, row);
      }
    }
  });
}

function seededRow(kind: SeedKind, entry: Record<string, unknown>): Row & Record<string, unknown> {
  const id = entry.id as string;
  const short = id.slice(0, 8);
  const at = now();
  const common = { tenantId: TENANT_ID, createdAt: at, updatedAt: at };
  switch (kind) {
    case 'workspaces':
      return { ...common, parentId: null, typeId: TENANT_ID, slug: `workspace-${short}`, name: `Workspace ${short}`, description: '', customFields: {}, status: 'active', version: 1, ...entry, id };
    case 'projects':
      return {
        ...common, workspaceId: TENANT_ID, templateId: TENANT_ID, statusKey: 'active', systemStatusCategory: 'active', ownerPrincipalId: null,
        startDate: null, targetDate: null, customFields: {}, settings: {}, activeConfigRevisionId: null, status: 'active', version: 1,
        createdBy: ADMIN_PRINCIPAL_ID, archivedAt: null, ...entry, id,
      };
    case 'principals':
      return { ...common, kind: 'human', displayName: `Principal ${short}`, status: 'active', metadata: {}, ...entry, id };
    case 'roles': {
      const slug = typeof entry.slug === 'string' ? entry.slug : `role-${short}`;
      return { ...common, workspaceId: null, name: `Role ${short}`, description: '', version: 1, package: null, ...entry, slug, id };
    }
  }
}
