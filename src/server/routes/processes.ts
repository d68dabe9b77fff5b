import { CoreError, conflict } from '../errors.js';
import { ADMIN_PRINCIPAL_ID, TENANT_ID, newId, now } from '../identity.js';
import { coreDigest } from '../../json/digest.js';
import { type Route, type RouteContext, booleanQuery, bodyOf, findOr404 } from '../route.js';
import type { Store } from '../store.js';
import { type CatalogRow, type PackageLink, nextVersion } from './catalog.js';

/**
 * Process definitions, calendars and views: published by `POST /packages:apply` as immutable versions;
 * a key is retired as a whole (`:retire`, with `dryRun`), and publishing it again restores it.
 */
export type VersionedKind = 'Process' | 'Calendar' | 'View';

export const COLLECTION_OF: Record<VersionedKind, string> = { Process: 'process-definitions', Calendar: 'calendars', View: 'views' };

export interface Retirement {
  id: string;
  at: string;
  by: string;
  reason: string;
}

export function retirementOf(store: Store, kind: VersionedKind, key: string): Retirement | undefined {
  return store.get<Retirement>('retirements', `${kind}/${key}`);
}

export function latestVersionRow(store: Store, kind: VersionedKind, key: string): CatalogRow | undefined {
  return store.byKey<CatalogRow>(COLLECTION_OF[kind], key).at(-1);
}

/**
 * Publishes a new version of the key (numbered `version`, else the next one) and brings a retired key back.
 * A process version works in the workspace its spec names.
 */
export function publishVersion(store: Store, kind: VersionedKind, key: string, spec: Record<string, unknown>, link: PackageLink | null, version?: number): CatalogRow {
  const collection = COLLECTION_OF[kind];
  const common = { id: newId(), tenantId: TENANT_ID, key, version: version ?? nextVersion(store, collection, key), spec, package: link, createdBy: ADMIN_PRINCIPAL_ID, createdAt: now() };
  const row: CatalogRow =
    kind === 'Process'
      ? {
          ...common,
          workspaceId: typeof spec.workspaceId === 'string' ? spec.workspaceId : null,
          displayName: typeof spec.displayName === 'string' ? spec.displayName : key,
          definitionHash: coreDigest(spec),
          identityAgent: (spec.identity as { agent?: string } | undefined)?.agent ?? null,
          expressionProfile: 'cp/1',
          engineRevision: 1,
          owner: Array.isArray(spec.owner) ? spec.owner : null,
          warnings: [],
        }
      : kind === 'Calendar'
        ? { ...common, calendarHash: coreDigest(spec), provisionalYears: [] }
        : common;
  store.insert(collection, key, row);
  restoreKey(store, kind, key);
  return row;
}

/** Takes the key out of use: no new instance starts (a process), no new version names it (a calendar). */
export function retireKey(store: Store, kind: VersionedKind, key: string, reason: string): Retirement {
  const retirement = { id: `${kind}/${key}`, at: now(), by: ADMIN_PRINCIPAL_ID, reason };
  store.insert('retirements', kind, retirement);
  return retirement;
}

/** Brings a retired key back into use. */
export function restoreKey(store: Store, kind: VersionedKind, key: string): void {
  store.remove('retirements', `${kind}/${key}`);
}

/** The answer for a version: the row plus what belongs to the whole key (latest version, retirement). */
function versionOut(store: Store, kind: VersionedKind, row: CatalogRow): Record<string, unknown> {
  const retired = retirementOf(store, kind, row.key as string);
  return {
    ...row,
    latestVersion: latestVersionRow(store, kind, row.key as string)!.version,
    status: retired ? 'retired' : 'active',
    retired: retired ? { at: retired.at, by: retired.by, reason: retired.reason } : null,
  };
}

/** `key` (the latest version) or `key@version`. */
function resolveRef(ctx: RouteContext, kind: VersionedKind): CatalogRow {
  const ref = ctx.params.ref!;
  const at = ref.lastIndexOf('@');
  const key = at > 0 ? ref.slice(0, at) : ref;
  const rows = ctx.store.byKey<CatalogRow>(COLLECTION_OF[kind], key);
  const row = at > 0 ? rows.find((r) => String(r.version) === ref.slice(at + 1)) : rows.at(-1);
  return findOr404(row, `${kind} ${ref}`);
}

/** Processes whose latest version names the calendar anywhere (`spec.calendar`, a deadline's calendar). */
function processesUsing(store: Store, calendar: string): { key: string; version: number; openInstances: number }[] {
  const latest = new Map<string, CatalogRow>();
  for (const row of store.all<CatalogRow>('process-definitions')) latest.set(row.key as string, row);
  return [...latest.values()]
    .filter((row) => !retirementOf(store, 'Process', row.key as string) && namesCalendar(row.spec, calendar))
    .map((row) => ({ key: row.key as string, version: row.version as number, openInstances: 0 }));
}

function namesCalendar(value: unknown, calendar: string): boolean {
  if (Array.isArray(value)) return value.some((v) => namesCalendar(v, calendar));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => (k === 'calendar' && v === calendar) || namesCalendar(v, calendar));
}

function retireRoute(kind: 'Process' | 'Calendar', response: string): Route {
  return {
    method: 'POST',
    path: `/api/v1/${COLLECTION_OF[kind]}/{key}:retire`,
    api: 'core',
    summary: `Retire a ${kind === 'Process' ? 'process' : 'calendar'} key (dryRun=true: the same checks and answer, nothing written)`,
    request: 'CatalogRetireRequest',
    response,
    query: [{ name: 'dryRun', type: 'boolean' }],
    handle(ctx) {
      const key = ctx.params.key!;
      if (!latestVersionRow(ctx.store, kind, key)) throw new CoreError(404, 'not_found', `${kind} ${key} not found`, { [kind === 'Process' ? 'process' : 'calendar']: key });
      const dryRun = booleanQuery(ctx.query, 'dryRun');
      let retirement = retirementOf(ctx.store, kind, key);
      if (!retirement) {
        if (kind === 'Calendar') refuseCalendarInUse(ctx.store, key);
        const reason = bodyOf<{ reason: string }>(ctx).reason;
        retirement = dryRun ? { id: `${kind}/${key}`, at: now(), by: ADMIN_PRINCIPAL_ID, reason } : retireKey(ctx.store, kind, key, reason);
      }
      const retired = { at: retirement.at, by: retirement.by, reason: retirement.reason };
      return { body: kind === 'Process' ? { key, status: 'retired', retired, openInstances: 0, byVersion: [] } : { key, status: 'retired', retired } };
    },
  };
}

function refuseCalendarInUse(store: Store, calendar: string): void {
  const processes = processesUsing(store, calendar);
  if (processes.length === 0) return;
  const names = processes.map((p) => `${p.key} v${p.version}`).join(', ');
  throw conflict('calendar_in_use', `calendar ${calendar} is used by active processes: ${names}`, { calendar, processes, total: processes.length });
}

function readRoute(kind: VersionedKind, response: string): Route {
  return {
    method: 'GET',
    path: `/api/v1/${COLLECTION_OF[kind]}/{ref}`,
    api: 'core',
    summary: `Read a ${kind}: key (the latest version) or key@version`,
    response,
    handle: (ctx) => ({ body: versionOut(ctx.store, kind, resolveRef(ctx, kind)) }),
  };
}


export const PROCESS_ROUTES: Route[] = [
  readRoute('Process', 'ProcessDefinitionOut'),
  retireRoute('Process', 'ProcessRetireOut'),
  readRoute('Calendar', 'CalendarOut'),
  retireRoute('Calendar', 'CalendarRetireOut'),
  readRoute('View', 'ViewOut'),
];
