import { conflict, unprocessable } from '../errors.js';
import { ADMIN_PRINCIPAL_ID, TENANT_ID, newId, now } from '../identity.js';
import { LIST_QUERY, type QueryParameter, type Reply, type Route, type RouteContext, bodyOf, etag, findOr404, page, requireIfMatch } from '../route.js';
import type { Row, Store } from '../store.js';

/**
 * Catalog objects the installer writes through their own routes (compat-package-sdk-install §6.3):
 * workspace types, capabilities, connection types, roles, skills, artifact types, task types and
 * project templates. Task types and project templates are immutable versions; the others are rows
 * changed under If-Match.
 */
export interface PackageLink {
  key: string;
  version: string | null;
  installHash: string | null;
  installedAt: string;
}

export interface CatalogRow extends Row {
  package?: PackageLink | null;
  [field: string]: unknown;
}

/** A list route: rows of a collection (optionally of one key) filtered by query parameters, paginated. */
function listRoute(
  path: string, collection: string, response: string, keyParameter?: string,
  filter?: { parameter: QueryParameter; keeps: (row: CatalogRow, ctx: RouteContext) => boolean },
): Route {
  return {
    method: 'GET',
    path,
    api: 'core',
    summary: `List ${collection.replaceAll('-', ' ')}`,
    response,
    query: [...(keyParameter ? [{ name: keyParameter, type: 'string' as const }] : []), ...(filter ? [filter.parameter] : []), ...LIST_QUERY],
    handle(ctx) {
      const key = keyParameter ? ctx.query.get(keyParameter) : null;
      const rows = key ? ctx.store.byKey<CatalogRow>(collection, key) : ctx.store.all<CatalogRow>(collection);
      return { body: page(filter ? rows.filter((r) => filter.keeps(r, ctx)) : rows, ctx.query) };
    },
  };
}

function getRoute(path: string, collection: string, response: string, what: string, etagPrefix?: (row: CatalogRow) => string, params?: Route['params']): Route {
  return {
    method: 'GET',
    path,
    api: 'core',
    ...(params ? { params } : {}),
    summary: `Read a ${what}`,
    response,
    handle(ctx) {
      const row = findOr404(ctx.store.get<CatalogRow>(collection, ctx.params.id!), `${what} ${ctx.params.id}`);
      const headers: Record<string, string> = etagPrefix ? { ETag: etagPrefix(row) } : {};
      return { body: row, headers };
    },
  };
}

/** PATCH of a row whose ETag is `"<prefix>-<counter>"`: only the fields sent change, the counter moves on. */
function patchRow(ctx: RouteContext, collection: string, row: CatalogRow, prefix: string, counter: 'version' | 'rowVersion', changes: Record<string, unknown>): Reply {
  requireIfMatch(ctx, etag(prefix, row[counter] as number));
  const next: CatalogRow = { ...row, ...changes, [counter]: (row[counter] as number) + 1 };
  if (row.updatedAt !== undefined) next.updatedAt = now();
  ctx.store.replace(collection, next);
  return { body: next, headers: { ETag: etag(prefix, next[counter] as number) } };
}

function base(): { id: string; tenantId: string; package: null; createdAt: string; updatedAt: string } {
  const at = now();
  return { id: newId(), tenantId: TENANT_ID, package: null, createdAt: at, updatedAt: at };
}

const workspaceTypes: Route[] = [
  listRoute('/api/v1/workspace-types', 'workspace-types', 'WorkspaceTypePage'),
  {
    method: 'POST',
    path: '/api/v1/workspace-types',
    api: 'core',
    summary: 'Create a workspace type',
    request: 'WorkspaceTypeCreateRequest',
    response: 'WorkspaceTypeOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<{ key: string; displayName: string; description?: string; fieldSchema?: object; allowedChildTypes?: string[] | null }>(ctx);
      if (ctx.store.byKey('workspace-types', body.key).length > 0) throw conflict('workspace_type_exists', `workspace type '${body.key}' already exists`);
      const row = ctx.store.insert('workspace-types', body.key, {
        ...base(),
        key: body.key,
        status: 'active',
        version: 1,
        displayName: body.displayName,
        description: body.description ?? '',
        fieldSchema: body.fieldSchema ?? {},
        allowedChildTypes: body.allowedChildTypes ?? [],
      });
      return { status: 201, body: row, headers: { ETag: etag('workspace_type', 1) } };
    },
  },
  getRoute('/api/v1/workspace-types/{id}', 'workspace-types', 'WorkspaceTypeOut', 'workspace type', (r) => etag('workspace_type', r.version as number)),
  {
    method: 'PATCH',
    path: '/api/v1/workspace-types/{id}',
    api: 'core',
    summary: 'Change a workspace type (If-Match: "workspace_type-<version>")',
    request: 'WorkspaceTypePatchRequest',
    response: 'WorkspaceTypeOut',
    handle(ctx) {
      const row = findOr404(ctx.store.get<CatalogRow>('workspace-types', ctx.params.id!), `workspace type ${ctx.params.id}`);
      const changes = { ...bodyOf<Record<string, unknown>>(ctx) };
      if (changes.allowedChildTypes === null) changes.allowedChildTypes = [];
      return patchRow(ctx, 'workspace-types', row, 'workspace_type', 'version', changes);
    },
  },
];

const capabilities: Route[] = [
  listRoute('/api/v1/capabilities', 'capabilities', 'CapabilityPage'),
  {
    method: 'POST',
    path: '/api/v1/capabilities',
    api: 'core',
    summary: 'Create a capability',
    request: 'CapabilityCreateRequest',
    response: 'CapabilityOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<{ name: string; description?: string }>(ctx);
      if (ctx.store.byKey('capabilities', body.name).length > 0) throw conflict('capability_exists', `capability '${body.name}' already exists`);
      const { id, package: link } = base();
      return { status: 201, body: ctx.store.insert('capabilities', body.name, { id, name: body.name, description: body.description ?? '', package: link }) };
    },
  },
];

const connectionTypes: Route[] = [
  listRoute('/api/v1/connection-types', 'connection-types', 'ConnectionTypePage', 'key'),
  {
    method: 'POST',
    path: '/api/v1/connection-types',
    api: 'core',
    summary: 'Create a connection type version',
    request: 'ConnectionTypeCreateRequest',
    response: 'ConnectionTypeOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<{ key: string; version: number; spec: object }>(ctx);
      if (ctx.store.byKey<CatalogRow>('connection-types', body.key).some((r) => r.version === body.version)) {
        throw conflict('connection_type_version_exists', `connection type ${body.key}@${body.version} already exists — a version is immutable`);
      }
      const { id, package: link } = base();
      const row = ctx.store.insert('connection-types', body.key, { id, key: body.key, version: body.version, status: 'active', rowVersion: 1, spec: body.spec, package: link });
      return { status: 201, body: row };
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/connection-types/{key}@{version}',
    api: 'core',
    summary: 'Change the status of a connection type version (If-Match: "connection-type-<rowVersion>")',
    request: 'ConnectionTypePatchRequest',
    response: 'ConnectionTypeOut',
    handle(ctx) {
      const { key, version } = ctx.params as { key: string; version: string };
      const row = findOr404(ctx.store.byKey<CatalogRow>('connection-types', key).find((r) => String(r.version) === version), `connection type ${key}@${version}`);
      return patchRow(ctx, 'connection-types', row, 'connection-type', 'rowVersion', bodyOf<Record<string, unknown>>(ctx));
    },
  },
];

const roles: Route[] = [
  listRoute('/api/v1/roles', 'roles', 'RolePage'),
  {
    method: 'POST',
    path: '/api/v1/roles',
    api: 'core',
    summary: 'Create a role',
    request: 'RoleCreateRequest',
    response: 'RoleOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<{ slug: string; name: string; description?: string; workspaceId?: string | null }>(ctx);
      const workspaceId = body.workspaceId ?? null;
      if (ctx.store.byKey<CatalogRow>('roles', body.slug).some((r) => r.workspaceId === workspaceId)) {
        throw conflict('role_exists', `role '${body.slug}' already exists${workspaceId ? ` in workspace ${workspaceId}` : ''}`);
      }
      const row = ctx.store.insert('roles', body.slug, { ...base(), workspaceId, slug: body.slug, name: body.name, description: body.description ?? '', version: 1 });
      return { status: 201, body: row, headers: { ETag: etag('role', 1) } };
    },
  },
  getRoute('/api/v1/roles/{id}', 'roles', 'RoleOut', 'role', (r) => etag('role', r.version as number), { id: 'uuid' }),
  {
    method: 'PATCH',
    path: '/api/v1/roles/{id}',
    api: 'core',
    summary: 'Change a role (If-Match: "role-<version>")',
    request: 'RolePatchRequest',
    response: 'RoleOut',
    handle(ctx) {
      const row = findOr404(ctx.store.get<CatalogRow>('roles', ctx.params.id!), `role ${ctx.params.id}`);
      return patchRow(ctx, 'roles', row, 'role', 'version', bodyOf<Record<string, unknown>>(ctx));
    },
  },
];

const skills: Route[] = [
  listRoute('/api/v1/skills', 'skills', 'SkillPage', 'name'),
  {
    method: 'POST',
    path: '/api/v1/skills',
    api: 'core',
    summary: 'Register a skill version',
    request: 'SkillRegisterRequest',
    response: 'SkillOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<Record<string, unknown> & { name: string; version?: string }>(ctx);
      const version = body.version ?? '1.0.0';
      if (ctx.store.byKey<CatalogRow>('skills', body.name).some((r) => r.version === version)) {
        throw conflict('skill_version_exists', `skill ${body.name}@${version} already exists — bump spec.version`);
      }
      const { id, package: link } = base();
      const row = ctx.store.insert('skills', body.name, {
        id,
        name: body.name,
        version,
        rowVersion: 1,
        description: body.description ?? '',
        protocol: body.protocol ?? null,
        sideEffects: body.sideEffects ?? null,
        riskLevel: body.riskLevel ?? null,
        contract: body.contract ?? null,
        config: body.config ?? {},
        inputSchema: body.inputSchema ?? null,
        outputSchema: body.outputSchema ?? null,
        package: link,
      });
      return { status: 201, body: row, headers: { ETag: etag('skill', 1) } };
    },
  },
  getRoute('/api/v1/skills/{id}', 'skills', 'SkillOut', 'skill', (r) => etag('skill', r.rowVersion as number)),
  {
    method: 'PATCH',
    path: '/api/v1/skills/{id}',
    api: 'core',
    summary: 'Change the mutable fields of a skill version (If-Match: "skill-<rowVersion>")',
    request: 'SkillPatchRequest',
    response: 'SkillOut',
    handle(ctx) {
      const row = findOr404(ctx.store.get<CatalogRow>('skills', ctx.params.id!), `skill ${ctx.params.id}`);
      const { endpoint, ...changes } = bodyOf<Record<string, unknown> & { endpoint?: string }>(ctx);
      if (endpoint !== undefined) changes.contract = withEndpoint(row, endpoint);
      return patchRow(ctx, 'skills', row, 'skill', 'rowVersion', changes);
    },
  },
];

/** The endpoint is the one part of a skill's contract that may move without a new version. */
function withEndpoint(row: CatalogRow, endpoint: string): Record<string, unknown> {
  const contract = row.contract as { implementation?: Record<string, unknown> } | null;
  if (!contract?.implementation) throw unprocessable('skill_contract_missing', `skill ${row.name as string}@${row.version as string} has no contract implementation to move`);
  return { ...contract, implementation: { ...contract.implementation, endpoint } };
}

const artifactTypes: Route[] = [
  listRoute('/api/v1/artifact-types', 'artifact-types', 'ArtifactTypePage', 'key'),
  {
    method: 'POST',
    path: '/api/v1/artifact-types',
    api: 'core',
    summary: 'Create an artifact type version (the server allocates the version)',
    request: 'ArtifactTypeCreateRequest',
    response: 'ArtifactTypeOut',
    status: 201,
    handle(ctx) {
      const body = bodyOf<{ key: string; displayName: string; description?: string; metadataSchema?: object; mediaTypes: unknown[]; maxBytes?: number | null }>(ctx);
      if (body.mediaTypes.length === 0 || !body.mediaTypes.every((m) => typeof m === 'string' && /^[^/\s]+\/[^/\s]+$/.test(m))) {
        throw unprocessable('invalid_artifact_type', 'mediaTypes must list at least one media type of the form type/subtype');
      }
      if (body.maxBytes !== undefined && body.maxBytes !== null && body.maxBytes <= 0) throw unprocessable('invalid_artifact_type', 'maxBytes must be positive');
      const { id, package: link, createdAt } = base();
      const row = ctx.store.insert('artifact-types', body.key, {
        id,
        key: body.key,
        version: nextVersion(ctx.store, 'artifact-types', body.key),
        status: 'active',
        displayName: body.displayName,
        description: body.description ?? '',
        metadataSchema: body.metadataSchema ?? {},
        mediaTypes: body.mediaTypes as string[],
        maxBytes: body.maxBytes ?? null,
        package: link,
        createdAt,
      });
      return { status: 201, body: row };
    },
  },
];

export function nextVersion(store: Store, collection: string, key: string): number {
  return store.byKey<CatalogRow>(collection, key).reduce((max, r) => Math.max(max, r.version as number), 0) + 1;
}

/**
 * Task types and project templates: every create is a new immutable version; old versions are
 * deprecated explicitly. The built-in `task` keeps at least one active version.
 */
export type VersionedCollection = 'task-types' | 'project-templates';

const VERSIONED_DEFAULTS: Record<VersionedCollection, Record<string, unknown>> = {
  'task-types': { description: '', fieldSchema: {}, approvalSchema: {}, execution: null },
  'project-templates': { description: '', fieldSchema: {}, defaultViews: [], governanceSchema: {}, memoryDefaults: {} },
};

export function createVersion(store: Store, collection: VersionedCollection, key: string, fields: Record<string, unknown>, link: PackageLink | null = null): CatalogRow {
  const row: CatalogRow = {
    id: newId(),
    tenantId: TENANT_ID,
    key,
    version: nextVersion(store, collection, key),
    status: 'active',
    ...VERSIONED_DEFAULTS[collection],
    ...fields,
    package: link,
    createdBy: ADMIN_PRINCIPAL_ID,
    createdAt: now(),
  };
  return store.insert(collection, key, row);
}

export function deprecateVersion(store: Store, collection: VersionedCollection, row: CatalogRow): CatalogRow {
  if (row.status === 'deprecated') return row;
  const active = store.byKey<CatalogRow>(collection, row.key as string).filter((r) => r.status === 'active');
  if (collection === 'task-types' && row.key === 'task' && active.length === 1) {
    throw unprocessable('system_task_type_required', 'the built-in task type `task` must keep one active version');
  }
  return store.replace(collection, { ...row, status: 'deprecated', deprecatedAt: now() });
}

function versionedRoutes(collection: VersionedCollection, noun: string, request: string, one: string, many: string): Route[] {
  const path = `/api/v1/${collection}`;
  return [
    listRoute(path, collection, many, 'key', {
      parameter: { name: 'status', type: 'string', description: 'active or deprecated' },
      keeps(row, ctx) {
        const status = ctx.query.get('status');
        return !status || row.status === status;
      },
    }),
    {
      method: 'POST',
      path,
      api: 'core',
      summary: `Create a ${noun} version (the server allocates the version)`,
      request,
      response: one,
      status: 201,
      handle(ctx) {
        const { key, ...fields } = bodyOf<Record<string, unknown> & { key: string }>(ctx);
        return { status: 201, body: createVersion(ctx.store, collection, key, fields) };
      },
    },
    getRoute(`${path}/{id}`, collection, one, noun),
    {
      method: 'POST',
      path: `${path}/{id}:deprecate`,
      api: 'core',
      summary: `Deprecate a ${noun} version`,
      response: one,
      handle(ctx) {
        const row = findOr404(ctx.store.get<CatalogRow>(collection, ctx.params.id!), `${noun} ${ctx.params.id}`);
        return { body: deprecateVersion(ctx.store, collection, row) };
      },
    },
  ];
}

export function ensureBuiltInTaskType(store: Store): void {
  store.transaction(() => {
    if (store.byKey('task-types', 'task').length === 0) createVersion(store, 'task-types', 'task', { displayName: 'Task', description: 'A task of no particular type (built in)' });
  });
}

export const CATALOG_ROUTES: Route[] = [
  ...workspaceTypes,
  ...capabilities,
  ...connectionTypes,
  ...roles,
  ...skills,
  ...artifactTypes,
  ...versionedRoutes('task-types', 'task type', 'TaskTypeCreateRequest', 'TaskTypeOut', 'TaskTypePage'),
  ...versionedRoutes('project-templates', 'project template', 'ProjectTemplateCreateRequest', 'ProjectTemplateOut', 'ProjectTemplatePage'),
];
