import type { ContractError } from '../errors.js';
import { unprocessable } from '../errors.js';
import { now } from '../identity.js';
import { byText } from '../../json/canonical.js';
import type { PackageFile } from '../../contract/packages.js';
import type { CheckedPackage } from '../package-plan.js';
import { applyPackage, checkPackage, planPackage } from '../packages.js';
import { recordLink } from '../package-links.js';
import { testPackage } from '../package-tests.js';
import { type Route, type RouteContext, booleanQuery, bodyOf } from '../route.js';
import type { Store } from '../store.js';
import type { CatalogRow, PackageLink } from './catalog.js';

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

/** Reads and checks the package before the transaction of plan or apply. */
function checked(ctx: RouteContext): Promise<CheckedPackage> {
  const body = bodyOf<PackageBody>(ctx);
  return checkPackage(body.package.files, body.workspaceId ?? null);
}

/**
 * The core's model validators of `PackageSource` (compat-core-packages §1.1): paths unique, relative, without
 * a backslash, a NUL, an empty or a `..` segment.
 */
function packageSourceErrors(body: unknown): ContractError[] {
  const files = (body as PackageBody).package.files;
  const errors: ContractError[] = [];
  files.forEach((file, index) => {
    const segments = file.path.split('/');
    if (/[\\\0]/.test(file.path) || segments.some((segment) => segment === '' || segment === '..')) {
      errors.push({ loc: `body.package.files.${index}.path`, message: 'Value error, a file path is relative, with / between non-empty segments, without .. , a backslash or NUL' });
    }
  });
  if (new Set(files.map((file) => file.path)).size !== files.length) errors.push({ loc: 'body.package.files', message: 'Value error, file paths must be unique' });
  return errors;
}

/** The kinds `/packages:record` links, in the order it answers them (the catalog's). */
const RECORDED_KINDS = ['ArtifactType', 'TaskType', 'ProjectTemplate', 'WorkspaceType', 'Role', 'Capability', 'ConnectionType', 'Skill', 'WorkRule', 'Agent'] as const;
type RecordedKind = (typeof RECORDED_KINDS)[number];

const RECORDED_COLLECTION: Readonly<Record<RecordedKind, string>> = {
  ArtifactType: 'artifact-types', TaskType: 'task-types', ProjectTemplate: 'project-templates', WorkspaceType: 'workspace-types', Role: 'roles',
  Capability: 'capabilities', ConnectionType: 'connection-types', Skill: 'skills', WorkRule: 'rules', Agent: 'agents',
};

interface RecordBody {
  package: { key: string; version: string };
  installHash?: string | null;
  objects: { kind: RecordedKind; key: string }[];
}

/** The catalog rows a recorded (kind, key) names: every version and status; a role of the tenant (not of a workspace). */
function rowsNamed(store: Store, kind: RecordedKind, key: string): CatalogRow[] {
  const rows = store.byKey<CatalogRow>(RECORDED_COLLECTION[kind], key);
  return kind === 'Role' ? rows.filter((row) => row.workspaceId === null) : rows;
}

/** `/packages:record` (§8.3): every named object must exist, all or nothing; the link moves even when nothing changed. */
function record(store: Store, body: RecordBody) {
  const objects = [...new Map(body.objects.map((object) => [`${object.kind}/${object.key}`, object])).values()].sort(
    (a, b) => RECORDED_KINDS.indexOf(a.kind) - RECORDED_KINDS.indexOf(b.kind) || byText(a.key, b.key),
  );
  const missing = objects.filter((object) => rowsNamed(store, object.kind, object.key).length === 0);
  if (missing.length > 0) {
    throw unprocessable('unknown_object', `${missing.map((o) => `${o.kind}/${o.key}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the catalog`, { objects: missing });
  }
  const link: PackageLink = { key: body.package.key, version: body.package.version, installHash: body.installHash ?? null, installedAt: now() };
  for (const object of objects) {
    recordLink(store, object.kind, object.key, link);
    for (const row of rowsNamed(store, object.kind, object.key)) store.replace(RECORDED_COLLECTION[object.kind], { ...row, package: link });
  }
  return { package: body.package, installHash: body.installHash ?? null, recorded: objects.map(({ kind, key }) => ({ kind, key })) };
}

export const PACKAGE_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/packages:plan',
    api: 'core',
    summary: 'Plan the core-planned objects of a package: a trial always rolled back (writes nothing)',
    request: 'PackagePlanRequest',
    validate: packageSourceErrors,
    response: 'PackagePlanOut',
    idempotent: false,
    rolledBack: true,
    prepare: checked,
    handle: (ctx) => ({ body: planPackage(ctx.store, planInput(bodyOf<PackageBody>(ctx)), ctx.prepared as CheckedPackage) }),
  },
  {
    method: 'POST',
    path: '/api/v1/packages:apply',
    api: 'core',
    summary: 'Publish a package planned with planHash: 409 plan_stale when the plan moved, 422 when it is invalid',
    request: 'PackageApplyRequest',
    validate: packageSourceErrors,
    response: 'PackageApplyOut',
    prepare: checked,
    handle(ctx) {
      const body = bodyOf<PackageBody>(ctx);
      return { body: applyPackage(ctx.store, { ...planInput(body), planHash: body.planHash! }, ctx.prepared as CheckedPackage) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/packages:record',
    api: 'core',
    summary: 'Link the objects an installer applied through their routes to their package',
    request: 'PackageRecordRequest',
    response: 'PackageRecordOut',
    handle: (ctx) => ({ body: record(ctx.store, bodyOf<RecordBody>(ctx)) }),
  },
  {
    method: 'POST',
    path: '/api/v1/packages:test',
    api: 'core',
    summary: "Check a package with the core's checks and run its tests (checkOnly=true: only check); writes nothing",
    request: 'PackageTestRequest',
    validate: packageSourceErrors,
    response: 'PackageTestOut',
    query: [{ name: 'checkOnly', type: 'boolean' }],
    idempotent: false,
    transactional: false,
    async handle(ctx) {
      const body = bodyOf<{ package: { files: PackageFile[] }; tests?: string[]; workspaceId?: string | null }>(ctx);
      return { body: await testPackage({ ...body, checkOnly: booleanQuery(ctx.query, 'checkOnly') }, ctx.store, ctx.state.packageTester) };
    },
  },
];
