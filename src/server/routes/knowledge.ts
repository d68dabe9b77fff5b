import { conflict, unprocessable } from '../errors.js';
import { now, sameJson } from '../identity.js';
import { type Route, type RouteContext, bodyOf, findOr404 } from '../route.js';
import type { Row, Store } from '../store.js';

/**
 * Knowledge packs (ontologies): a registered version is immutable — the same manifest again is
 * `unchanged`, a different one is 409. A workspace tree has one pack set, kept on its root workspace.
 */
interface PackRow extends Row {
  manifest: Record<string, unknown>;
  pack: Record<string, unknown>;
}

interface PackSetRow extends Row {
  packs: string[];
  strict: boolean;
  updatedAt: string;
}

interface WorkspaceRow extends Row {
  parentId: string | null;
}

const PACK_NAME = /^[a-z][a-z0-9_.-]{0,127}$/;
/** The pack Memory applies to a namespace nobody configured. */
const DEFAULT_PACKS = ['default'];

function qualifiedName(name: string, tenant: boolean): string {
  return tenant ? `tenant:${name}` : name;
}

function register(store: Store, manifest: Record<string, unknown>) {
  const { name, version, scope, namespace } = manifest;
  if (typeof name !== 'string' || !PACK_NAME.test(name)) throw unprocessable('pack_invalid', 'name must be a pack name (lowercase letters, digits, - _ .)', { field: 'name' });
  if (typeof version !== 'string' && typeof version !== 'number') throw unprocessable('pack_invalid', 'version must be a string or a number', { field: 'version' });
  if (namespace !== undefined) throw unprocessable('pack_invalid', 'namespace is the core\'s to name — remove it from the manifest', { field: 'namespace' });
  const tenant = scope === 'tenant';
  const ref = `${qualifiedName(name, tenant)}@${version}`;
  const existing = store.get<PackRow>('knowledge-packs', ref);
  if (existing) {
    if (!sameJson(existing.manifest, manifest)) throw conflict('pack_version_exists', `pack ${ref} is already registered with different content — a pack version is immutable, bump version`);
    return { status: 'unchanged', pack: existing.pack };
  }
  const pack = { ...manifest, name, version: String(version), kinds: manifest.kinds ?? [], relations: manifest.relations ?? [], scope: tenant ? 'tenant' : 'common', ref };
  store.insert<PackRow>('knowledge-packs', qualifiedName(name, tenant), { id: ref, manifest, pack });
  return { status: 'created', pack };
}

/** `name@version`, `name` (the latest registered), `tenant:name[@version]`. */
function findPack(store: Store, ref: string): PackRow | undefined {
  const at = ref.lastIndexOf('@');
  if (at > 0) return store.get<PackRow>('knowledge-packs', ref);
  return store.byKey<PackRow>('knowledge-packs', ref).at(-1);
}

function workspace(ctx: RouteContext): WorkspaceRow {
  return findOr404(ctx.store.get<WorkspaceRow>('workspaces', ctx.params.id!.toLowerCase()), `workspace ${ctx.params.id}`);
}

function rootOf(store: Store, start: WorkspaceRow): WorkspaceRow {
  let current = start;
  const seen = new Set<string>();
  while (current.parentId && !seen.has(current.id)) {
    seen.add(current.id);
    const parent = store.get<WorkspaceRow>('workspaces', current.parentId);
    if (!parent) break;
    current = parent;
  }
  return current;
}

function packSetOut(store: Store, ws: WorkspaceRow) {
  const root = rootOf(store, ws);
  const set = store.get<PackSetRow>('workspace-packs', root.id);
  return {
    workspaceId: ws.id,
    rootWorkspaceId: root.id,
    configured: set !== undefined,
    packs: set?.packs ?? [],
    strict: set?.strict ?? false,
    effective: set ? set.packs : DEFAULT_PACKS,
    updatedAt: set?.updatedAt ?? null,
  };
}

export const KNOWLEDGE_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/knowledge/packs',
    api: 'core',
    summary: 'Register a knowledge pack version (immutable; the same manifest again is unchanged)',
    request: 'KnowledgePackRegisterRequest',
    response: 'KnowledgePackRegisterOut',
    handle: (ctx) => ({ body: register(ctx.store, bodyOf<Record<string, unknown>>(ctx)) }),
  },
  {
    method: 'GET',
    path: '/api/v1/knowledge/packs/{ref}',
    api: 'core',
    summary: 'Read a registered pack: name@version, name or tenant:name[@version]',
    response: 'KnowledgePackOut',
    handle: (ctx) => ({ body: findOr404(findPack(ctx.store, ctx.params.ref!), `knowledge pack ${ctx.params.ref}`).pack }),
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{id}/knowledge-packs',
    api: 'core',
    summary: 'The pack set of a workspace tree',
    response: 'WorkspaceKnowledgePacksOut',
    handle: (ctx) => ({ body: packSetOut(ctx.store, workspace(ctx)) }),
  },
  {
    method: 'PUT',
    path: '/api/v1/workspaces/{id}/knowledge-packs',
    api: 'core',
    summary: 'Replace the pack set of a workspace tree',
    request: 'WorkspaceKnowledgePacksRequest',
    response: 'WorkspaceKnowledgePacksOut',
    handle(ctx) {
      const ws = workspace(ctx);
      const body = bodyOf<{ packs: string[]; strict?: boolean }>(ctx);
      const root = rootOf(ctx.store, ws);
      const row: PackSetRow = { id: root.id, packs: body.packs, strict: body.strict ?? false, updatedAt: now() };
      if (ctx.store.get('workspace-packs', root.id)) ctx.store.replace('workspace-packs', row);
      else ctx.store.insert('workspace-packs', root.id, row);
      return { body: packSetOut(ctx.store, ws) };
    },
  },
];
