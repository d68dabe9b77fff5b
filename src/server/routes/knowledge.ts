import { CoreError, conflict, unprocessable } from '../errors.js';
import { now } from '../identity.js';
import { sameJson } from '../../json/canonical.js';
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

/** Memory's grammar of pack names and versions (compat-core-packages §9). */
const PACK_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const PACK_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,31}$/;
const PACK_REF = /^(tenant:)?([a-z0-9][a-z0-9._-]{0,63})(?:@([0-9A-Za-z][0-9A-Za-z.+-]{0,31}))?$/;
/** The pack Memory applies to a namespace nobody configured. */
const DEFAULT_PACKS = ['default'];

function qualifiedName(name: string, tenant: boolean): string {
  return tenant ? `tenant:${name}` : name;
}

function register(store: Store, manifest: Record<string, unknown>) {
  const { name, version, scope, namespace } = manifest;
  if (typeof name !== 'string' || name.trim() === '') throw unprocessable('pack_invalid', 'name is required: the name of the pack', { field: 'name' });
  if (version === undefined || version === null || typeof version === 'boolean' || String(version).trim() === '') {
    throw unprocessable('pack_invalid', 'version is required: a string or a number', { field: 'version' });
  }
  if (namespace !== undefined) throw unprocessable('pack_invalid', 'namespace is the core\'s to name — remove it from the manifest', { field: 'namespace' });
  if (!PACK_NAME.test(name)) throw unprocessable('pack_invalid', 'name must be a pack name: lowercase letters, digits, . _ - (at most 64)', { field: 'name' });
  if (!PACK_VERSION.test(String(version))) throw unprocessable('pack_invalid', 'version must be letters, digits, . + - (at most 32)', { field: 'version' });
  const tenant = scope === 'tenant';
  if (tenant && store.byKey('knowledge-packs', name).length > 0) throw unprocessable('pack_invalid', `a shared pack is named ${name}: a pack of the tenant takes another name`, { field: 'name' });
  const ref = `${qualifiedName(name, tenant)}@${version}`;
  const existing = store.get<PackRow>('knowledge-packs', ref);
  if (existing) {
    if (!sameJson(existing.manifest, manifest)) throw conflict('pack_version_conflict', `pack ${ref} is already registered with different content — a pack version is immutable, bump version`, { pack: ref });
    return { status: 'unchanged', pack: existing.pack };
  }
  const pack = { ...manifest, name, version: String(version), kinds: manifest.kinds ?? [], relations: manifest.relations ?? [], scope: tenant ? 'tenant' : 'common', ref };
  store.insert<PackRow>('knowledge-packs', qualifiedName(name, tenant), { id: ref, manifest, pack });
  return { status: 'created', pack };
}

/** `name@version`, `name` (the latest registered), `tenant:name[@version]`; another form is `422 invalid_pack_ref`. */
function findPack(store: Store, ref: string): PackRow {
  const parsed = PACK_REF.exec(ref);
  if (!parsed) throw unprocessable('invalid_pack_ref', `${ref} is not a pack reference: [tenant:]name[@version]`, { pack: ref });
  const found = parsed[3] !== undefined ? store.get<PackRow>('knowledge-packs', ref) : store.byKey<PackRow>('knowledge-packs', ref).at(-1);
  if (!found) throw new CoreError(404, 'not_found', `knowledge pack ${ref} not found`, { pack: ref });
  return found;
}

/**
 * The refs of a pack set: trimmed, each once, every one pinned to a version (`name@version`,
 * `tenant:name@version`) — else `422 pack_version_required` naming the others.
 */
function pinnedRefs(packs: readonly string[]): string[] {
  const refs = [...new Set(packs.map((pack) => pack.trim()))];
  const unpinned = refs.filter((ref) => PACK_REF.exec(ref)?.[3] === undefined);
  if (unpinned.length > 0) throw unprocessable('pack_version_required', `pin every pack to a version (name@version): ${unpinned.join(', ')}`, { packs: unpinned });
  return refs;
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
    handle: (ctx) => ({ body: findPack(ctx.store, ctx.params.ref!).pack }),
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{id}/knowledge-packs',
    api: 'core',
    params: { id: 'uuid' },
    summary: 'The pack set of a workspace tree',
    response: 'WorkspaceKnowledgePacksOut',
    handle: (ctx) => ({ body: packSetOut(ctx.store, workspace(ctx)) }),
  },
  {
    method: 'PUT',
    path: '/api/v1/workspaces/{id}/knowledge-packs',
    api: 'core',
    params: { id: 'uuid' },
    summary: 'Replace the pack set of a workspace tree (its root workspace; pinned refs)',
    request: 'WorkspaceKnowledgePacksRequest',
    response: 'WorkspaceKnowledgePacksOut',
    handle(ctx) {
      const ws = workspace(ctx);
      const body = bodyOf<{ packs: string[]; strict?: boolean }>(ctx);
      const root = rootOf(ctx.store, ws);
      if (root.id !== ws.id) {
        throw unprocessable('workspace_not_root', `workspace ${ws.id} is inside the tree of ${root.id}: the packs are set on the root workspace`, { workspaceId: ws.id, rootWorkspaceId: root.id });
      }
      const row: PackSetRow = { id: root.id, packs: pinnedRefs(body.packs), strict: body.strict ?? false, updatedAt: now() };
      if (ctx.store.get('workspace-packs', root.id)) ctx.store.replace('workspace-packs', row);
      else ctx.store.insert('workspace-packs', root.id, row);
      return { body: packSetOut(ctx.store, ws) };
    },
  },
];
