/**
 * `/packages:plan` and `/packages:apply` (compat-core-packages §4, §5): a plan is built on the catalog as it is,
 * in a transaction that is always rolled back; apply builds the same plan again in its own
 * transaction and refuses in the core's order — a different `planHash` first (`409 plan_stale`), then
 * instances that need a migration (`422 migration_required`), then any other error (`422 invalid_package`) —
 * before it publishes every change in plan order and links every planned object to the package.
 */
import type { CorePlannedKind, PackageApplied, PackageFile, PackagePlan } from '../contract/packages.js';
import { KIND_CATALOGS, deprecateTaskTypes } from './catalog-forms.js';
import { coreFindings } from './core-checks.js';
import { conflict, unprocessable } from './errors.js';
import { CatalogReads, type CheckedPackage, type PlanRequest, buildPlan, etagOf, packageLink, publishChange } from './package-plan.js';
import { readPackageSource } from './package-source.js';
import { type Problem, isErrorProblem } from './problems.js';
import { linkOf } from './package-links.js';
import type { Store } from './store.js';

export type { PlanRequest } from './package-plan.js';

/** Reads and checks the files (outside the transaction: it depends on the files alone). */
export async function checkPackage(files: readonly PackageFile[], workspaceId: string | null): Promise<CheckedPackage> {
  const source = await readPackageSource(files, workspaceId);
  return { source, checks: await coreFindings(files, source, { defaults: false }) };
}

/** The plan of a package; the route runs it in a transaction that is always rolled back, so it writes nothing. */
export function planPackage(store: Store, request: PlanRequest, checked: CheckedPackage): PackagePlan {
  return buildPlan(store, request, checked).plan;
}

export interface ApplyRequest extends PlanRequest {
  planHash: string;
}

export function applyPackage(store: Store, request: ApplyRequest, checked: CheckedPackage): PackageApplied {
  const built = buildPlan(store, request, checked);
  const { plan } = built;
  if (plan.planHash !== request.planHash) {
    throw conflict('plan_stale', 'The catalog or the open instances changed since the plan was built: build the plan again and apply the new one', {
      planHash: request.planHash, currentPlanHash: plan.planHash, catalogEtag: plan.catalogEtag,
    });
  }
  const { problems } = plan;
  refuseProblems(problems.filter((problem) => problem.code === 'migration_required'), 'migration_required', (first) => first.message, problems);
  refuseProblems(problems.filter(isErrorProblem), 'invalid_package', (first) => `The package is invalid: ${first.message} at ${first.path}`, problems);
  const link = packageLink(plan);
  const applied = built.planned.map((planned) => ({ ...pick(planned.change), version: publishChange(store, planned, link) }));
  return { planHash: plan.planHash, catalogEtag: etagOf(new CatalogReads(store), built.touched), applied };
}

function pick(change: { kind: CorePlannedKind; key: string; action: PackageApplied['applied'][number]['action'] }) {
  return { kind: change.kind, key: change.key, action: change.action };
}

function refuseProblems(refusing: readonly Problem[], code: string, message: (first: Problem) => string, problems: readonly Problem[]): void {
  if (refusing.length === 0) return;
  const more = refusing.length > 1 ? ` (and ${refusing.length - 1} more)` : '';
  throw unprocessable(code, `${message(refusing[0]!)}${more}`, { problems });
}

/**
 * A person's change in the console, for tests of plan and apply: the field at `path` (dotted, inside the
 * form) of the latest version set to `value` and published by the kind's own command, as the console would.
 * The next plan sees the latest version differ from what the last apply wanted: the field is the console's.
 */
export function editInConsole(store: Store, kind: CorePlannedKind, key: string, path: string, value: unknown) {
  const catalog = KIND_CATALOGS[kind];
  const latest = catalog.latest(store, key);
  if (!latest || latest.retired) throw unprocessable('not_published', `${kind}/${key} is not published — apply its package first`);
  const form = structuredClone(latest.form);
  const before = setPath(form, path.split('.'), value);
  // The console publishes a process as its next version.
  const version = kind === 'Process' ? latest.version + 1 : undefined;
  if (version !== undefined) form.version = version;
  const published = catalog.publish(store, key, form, linkOf(store, kind, key)?.package ?? null, version);
  // The edited version of a task type takes the place of the one the person edited.
  if (kind === 'TaskType') deprecateTaskTypes(store, key, [latest.version]);
  return { kind, key, path, before: before ?? null, after: value, version: published };
}

function setPath(target: Record<string, unknown>, parts: string[], value: unknown): unknown {
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts.at(-1)!;
  const before = node[last];
  node[last] = value;
  return before;
}
