import { unprocessable } from '../errors.js';
import { now } from '../identity.js';
import type { PackageFile } from '../../contract/packages.js';
import { applyPackage, planPackage } from '../packages.js';
import { type Route, booleanQuery, bodyOf } from '../route.js';
import type { Store } from '../store.js';
import { type CatalogRow, type PackageLink } from './catalog.js';
import { currentAgent } from './agents.js';
import { liveRule } from './rules.js';

interface PackageBody {
  package: { files: PackageFile[] };
  replayLimit?: number;
  workspaceId?: string | null;
  overwriteConsole?: boolean;
  planHash?: string;
}

function planInput(body: PackageBody) {
  return { files: body.package.files, workspaceId: body.workspaceId ?? null, overwriteConsole: body.overwriteConsole ?? false };
}

interface RecordBody {
  package: { key: string; version: string };
  installHash?: string | null;
  objects: { kind: string; key: string }[];
}

/** The catalog rows a recorded (kind, key) names: every version of a versioned kind, the live row otherwise. */
function rowsNamed(store: Store, kind: string, key: string): { collection: string; rows: CatalogRow[] } {
  switch (kind) {
    case 'ArtifactType':
      return { collection: 'artifact-types', rows: store.byKey('artifact-types', key) };
    case 'TaskType':
      return { collection: 'task-types', rows: store.byKey<CatalogRow>('task-types', key).filter((r) => r.status === 'active') };
    case 'ProjectTemplate':
      return { collection: 'project-templates', rows: store.byKey<CatalogRow>('project-templates', key).filter((r) => r.status === 'active') };
    case 'WorkspaceType':
      return { collection: 'workspace-types', rows: store.byKey('workspace-types', key) };
    case 'Role':
      return { collection: 'roles', rows: store.byKey<CatalogRow>('roles', key).filter((r) => r.workspaceId === null) };
    case 'Capability':
      return { collection: 'capabilities', rows: store.byKey('capabilities', key) };
    case 'ConnectionType':
      return { collection: 'connection-types', rows: store.byKey('connection-types', key) };
    case 'Skill':
      return { collection: 'skills', rows: store.byKey('skills', key) };
    case 'WorkRule': {
      const rule = liveRule(store, key);
      return { collection: 'rules', rows: rule ? [rule] : [] };
    }
    default: {
      const agent = currentAgent(store, key);
      return { collection: 'agents', rows: agent ? [agent] : [] };
    }
  }
}

export const PACKAGE_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/packages:plan',
    api: 'core',
    summary: 'Plan the core-planned objects of a package (writes nothing)',
    request: 'PackagePlanRequest',
    response: 'PackagePlanOut',
    requiresIdempotencyKey: true,
    handle: (ctx) => ({ body: planPackage(ctx.store, planInput(bodyOf<PackageBody>(ctx))) }),
  },
  {
    method: 'POST',
    path: '/api/v1/packages:apply',
    api: 'core',
    summary: 'Publish a package planned with planHash; 409 plan_stale when the plan moved',
    request: 'PackageApplyRequest',
    response: 'PackageApplyOut',
    requiresIdempotencyKey: true,
    handle(ctx) {
      const body = bodyOf<PackageBody>(ctx);
      return { body: applyPackage(ctx.store, { ...planInput(body), planHash: body.planHash! }) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/packages:record',
    api: 'core',
    summary: 'Link the objects an installer applied through their routes to their package',
    request: 'PackageRecordRequest',
    response: 'PackageRecordOut',
    handle(ctx) {
      const body = bodyOf<RecordBody>(ctx);
      const link: PackageLink = { key: body.package.key, version: body.package.version, installHash: body.installHash ?? null, installedAt: now() };
      for (const object of body.objects) {
        const { collection, rows } = rowsNamed(ctx.store, object.kind, object.key);
        if (rows.length === 0) throw unprocessable('unknown_object', `${object.kind}/${object.key} is not in the catalog`, { kind: object.kind, key: object.key });
        for (const row of rows) ctx.store.replace(collection, { ...row, package: link });
      }
      return { body: { package: body.package, installHash: body.installHash ?? null, recorded: body.objects } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/packages:test',
    api: 'core',
    summary: 'Run the package tests in the process engine (checkOnly=true: only check them)',
    request: 'PackageTestRequest',
    response: 'PackageTestOut',
    query: [{ name: 'checkOnly', type: 'boolean' }],
    transactional: false,
    handle(ctx) {
      const body = bodyOf<{ package: { files: PackageFile[] }; tests?: string[]; workspaceId?: string | null }>(ctx);
      return ctx.state.packageTester({ ...body, checkOnly: booleanQuery(ctx.query, 'checkOnly') }, ctx);
    },
  },
];
