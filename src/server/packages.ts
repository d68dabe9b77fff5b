import { LineCounter, parseAllDocuments } from 'yaml';
import { CORE_PLANNED_KINDS, type CorePlannedKind, type PackageFile } from '../contract/packages.js';
import { conflict, unprocessable } from './errors.js';
import { digest, now, sameJson } from './identity.js';
import { type AgentSpec, currentAgent, publishAgent } from './routes/agents.js';
import { type CatalogRow, type PackageLink, createVersion, deprecateVersion } from './routes/catalog.js';
import { type VersionedKind, latestVersionRow, publishVersion, retirementOf } from './routes/processes.js';
import { RULE_FIELDS, changeRule, createRule, liveRule } from './routes/rules.js';
import type { Row, Store } from './store.js';

/**
 * The core-planned part of a package (compat-package-sdk-install §4.5 "core", §6.2): `/packages:plan`
 * reads the package's files, compares its TaskType, Agent, Calendar, Process, WorkRule and View objects
 * with what was last published, and seals the answer with a `planHash` over the files and the state it
 * saw; `/packages:apply` plans again and publishes only when the hash is the same.
 *
 * A person may change a published object in the console (the admin route): the change is recorded as a
 * console edit, and the next plan shows that field as `owner: console`, overwritten only with
 * `overwriteConsole`.
 */

export interface PlanRequest {
  files: PackageFile[];
  workspaceId: string | null;
  overwriteConsole: boolean;
}

export interface Problem {
  code: string;
  severity: 'error' | 'warning';
  path: string;
  file: string | null;
  line: number | null;
  message: string;
  hint: string | null;
}

interface PackageObject {
  kind: string;
  key: string;
  spec: Record<string, unknown>;
}

interface PlanField {
  path: string;
  before: unknown;
  after: unknown;
  owner: 'package' | 'console';
  applies: boolean;
}

interface PlanChange {
  kind: CorePlannedKind;
  key: string;
  action: 'create' | 'update' | 'restore' | 'unchanged';
  renamedFrom: null;
  fields: PlanField[];
  deprecates?: number[];
}

/** What the core last published for an object: the spec as the package (and the console) left it. */
interface Published extends Row {
  spec: Record<string, unknown>;
}

export interface CorePlan {
  planHash: string;
  catalogEtag: string;
  package: { key: string | null; version: string | null };
  changes: PlanChange[];
  outside: { kind: string; key: string; appliedBy: 'installer' | 'notification-service' }[];
  processes: { key: string; fromVersion: number | null; toVersion: number; behaviour: null; instances: [] }[];
  regulationCoverage: [];
  problems: Problem[];
  createdAt: string;
}

interface ReadPackage {
  key: string | null;
  version: string | null;
  planned: PackageObject[];
  outside: CorePlan['outside'];
  problems: Problem[];
}

function isCorePlanned(kind: string): kind is CorePlannedKind {
  return (CORE_PLANNED_KINDS as readonly string[]).includes(kind);
}

function problem(code: string, message: string, file: string | null, line: number | null, path = ''): Problem {
  return { code, severity: 'error', path, file, line, message, hint: null };
}

/** Parses every file as YAML 1.2 (JSON included); documents without `apiVersion` and `kind` (tests, data) are not objects. */
function readPackage(files: readonly PackageFile[]): ReadPackage {
  const read: ReadPackage = { key: null, version: null, planned: [], outside: [], problems: [] };
  const seen = new Set<string>();
  for (const file of files) {
    const lineCounter = new LineCounter();
    for (const doc of parseAllDocuments(file.content, { lineCounter })) {
      if (doc.errors.length > 0) {
        const first = doc.errors[0]!;
        read.problems.push(problem('yaml_invalid', first.message.split('\n')[0]!, file.path, first.linePos?.[0].line ?? null));
        continue;
      }
      const value = doc.toJS() as unknown;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const { apiVersion, kind, key, spec } = value as Record<string, unknown>;
      if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
      const line = doc.range ? lineCounter.linePos(doc.range[0]).line : null;
      if (kind === 'Package') {
        read.key = typeof key === 'string' ? key : null;
        const version = (spec as { version?: unknown } | undefined)?.version;
        read.version = version === undefined || version === null ? null : String(version);
        continue;
      }
      if (typeof key !== 'string' || key === '') {
        read.problems.push(problem('object_invalid', `${kind} object has no key`, file.path, line, '/key'));
        continue;
      }
      if (!isCorePlanned(kind)) {
        read.outside.push({ kind, key, appliedBy: kind === 'NotificationRule' ? 'notification-service' : 'installer' });
        continue;
      }
      if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
        read.problems.push(problem('object_invalid', `${kind}/${key}: spec must be a mapping`, file.path, line, '/spec'));
        continue;
      }
      if (seen.has(`${kind}/${key}`)) {
        read.problems.push(problem('duplicate_object', `${kind}/${key} is defined more than once in the package`, file.path, line, '/key'));
        continue;
      }
      seen.add(`${kind}/${key}`);
      read.planned.push({ kind, key, spec: spec as Record<string, unknown> });
    }
  }
  if (read.key === null) read.problems.push(problem('package_manifest_missing', 'the package has no manifest (an object of kind Package with a key)', null, null));
  read.planned.sort((a, b) => CORE_PLANNED_KINDS.indexOf(a.kind as CorePlannedKind) - CORE_PLANNED_KINDS.indexOf(b.kind as CorePlannedKind));
  return read;
}

function published(store: Store, kind: string, key: string): Published | undefined {
  return store.get<Published>('published', `${kind}/${key}`);
}

/** Whether the published object is still in use: not deprecated, retired or archived since. */
function isLive(store: Store, kind: CorePlannedKind, key: string): boolean {
  switch (kind) {
    case 'TaskType':
      return store.byKey<CatalogRow>('task-types', key).some((r) => r.status === 'active');
    case 'Agent':
      return currentAgent(store, key)?.status === 'active';
    case 'WorkRule':
      return liveRule(store, key) !== undefined;
    default:
      return latestVersionRow(store, kind, key) !== undefined && !retirementOf(store, kind, key);
  }
}

function currentVersion(store: Store, kind: CorePlannedKind, key: string): number | null {
  switch (kind) {
    case 'TaskType':
      return (store.byKey<CatalogRow>('task-types', key).at(-1)?.version as number | undefined) ?? null;
    case 'Agent':
      return currentAgent(store, key)?.currentRevision ?? null;
    case 'WorkRule':
      return liveRule(store, key)?.version ?? null;
    default:
      return (latestVersionRow(store, kind, key)?.version as number | undefined) ?? null;
  }
}

function fieldChanges(store: Store, object: PackageObject, before: Record<string, unknown>, overwriteConsole: boolean): PlanField[] {
  const edits = store.consoleEdits(object.kind, object.key);
  const names = [...new Set([...Object.keys(before), ...Object.keys(object.spec)])].sort();
  return names
    .filter((name) => !sameJson(before[name] ?? null, object.spec[name] ?? null))
    .map((name) => {
      const console = edits.some((e) => e.path === name || e.path.startsWith(`${name}.`));
      return { path: name, before: before[name] ?? null, after: object.spec[name] ?? null, owner: console ? 'console' : 'package', applies: console ? overwriteConsole : true };
    });
}

function changeOf(store: Store, object: PackageObject, overwriteConsole: boolean): PlanChange {
  const kind = object.kind as CorePlannedKind;
  const last = published(store, kind, object.key);
  const change: PlanChange = { kind, key: object.key, action: 'create', renamedFrom: null, fields: [] };
  if (last) {
    change.fields = fieldChanges(store, object, last.spec, overwriteConsole);
    change.action = !isLive(store, kind, object.key) ? 'restore' : change.fields.length > 0 ? 'update' : 'unchanged';
  }
  if (kind === 'TaskType') {
    const active = store.byKey<CatalogRow>('task-types', object.key).filter((r) => r.status === 'active').map((r) => r.version as number);
    // A new version keeps itself only; an unchanged one keeps the latest active version.
    const deprecates = change.action === 'unchanged' ? active.slice(0, -1) : active;
    if (deprecates.length > 0) change.deprecates = deprecates;
  }
  return change;
}

/** The state a plan depends on, and nothing else: a write elsewhere in the catalog does not make it stale. */
function stateOf(store: Store, objects: readonly PackageObject[]) {
  return objects.map((o) => ({
    kind: o.kind,
    key: o.key,
    published: published(store, o.kind, o.key)?.spec ?? null,
    live: isLive(store, o.kind as CorePlannedKind, o.key),
    version: currentVersion(store, o.kind as CorePlannedKind, o.key),
    consoleEdits: store.consoleEdits(o.kind, o.key),
  }));
}

export function planPackage(store: Store, request: PlanRequest): CorePlan {
  const read = readPackage(request.files);
  const state = stateOf(store, read.planned);
  const hasConsoleEdits = state.some((s) => s.consoleEdits.length > 0);
  const changes = read.planned.map((o) => changeOf(store, o, request.overwriteConsole));
  const processes = changes
    .filter((c) => c.kind === 'Process' && c.action !== 'unchanged')
    .map((c) => {
      const from = currentVersion(store, 'Process', c.key);
      return { key: c.key, fromVersion: from, toVersion: (from ?? 0) + 1, behaviour: null, instances: [] as [] };
    });
  const catalogEtag = digest(state);
  const planHash = digest({
    files: request.files,
    workspaceId: request.workspaceId,
    state,
    ...(hasConsoleEdits || request.overwriteConsole ? { overwriteConsole: request.overwriteConsole } : {}),
  });
  return {
    planHash,
    catalogEtag,
    package: { key: read.key, version: read.version },
    changes,
    outside: read.outside,
    processes,
    regulationCoverage: [],
    problems: read.problems,
    createdAt: now(),
  };
}

export interface ApplyRequest extends PlanRequest {
  planHash: string;
}

export function applyPackage(store: Store, request: ApplyRequest) {
  const plan = planPackage(store, request);
  const errors = plan.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw unprocessable('package_invalid', `the package has ${errors.length} problem(s): ${errors[0]!.message}`, { problems: plan.problems });
  if (plan.planHash !== request.planHash) {
    throw conflict('plan_stale', 'plan is stale: the catalog changed after the plan was built — build the plan again', { planHash: request.planHash, current: plan.planHash });
  }
  const read = readPackage(request.files);
  const link: PackageLink = { key: plan.package.key!, version: plan.package.version, installHash: plan.planHash, installedAt: now() };
  const applied = plan.changes.map((change, i) => {
    const object = read.planned[i]!;
    if (change.action === 'unchanged') return { kind: change.kind, key: change.key, action: change.action, version: currentVersion(store, change.kind, change.key) };
    const spec = effectiveSpec(store, object, change);
    const version = publish(store, change.kind, object.key, spec, link, request.workspaceId);
    store.replaceOrInsert('published', change.kind, { id: `${change.kind}/${change.key}`, spec });
    if (request.overwriteConsole) store.dropConsoleEdits(change.kind, change.key);
    return { kind: change.kind, key: change.key, action: change.action, version };
  });
  return { planHash: plan.planHash, catalogEtag: digest(stateOf(store, read.planned)), applied };
}

/** The package's spec, except console-owned fields the plan keeps: those stay as the person left them. */
function effectiveSpec(store: Store, object: PackageObject, change: PlanChange): Record<string, unknown> {
  const spec = { ...object.spec };
  const before = published(store, object.kind, object.key)?.spec ?? {};
  for (const field of change.fields) {
    if (field.applies) continue;
    if (field.path in before) spec[field.path] = before[field.path];
    else delete spec[field.path];
  }
  return spec;
}

/** Writes an object into its catalog collection the way the core publishes that kind; returns its version. */
export function publish(store: Store, kind: CorePlannedKind, key: string, spec: Record<string, unknown>, link: PackageLink | null, workspaceId: string | null): number {
  switch (kind) {
    case 'TaskType': {
      const row = createVersion(store, 'task-types', key, spec, link);
      for (const old of store.byKey<CatalogRow>('task-types', key)) {
        if (old.id !== row.id && old.status === 'active') deprecateVersion(store, 'task-types', old);
      }
      return row.version as number;
    }
    case 'Agent':
      return publishAgent(store, key, spec as AgentSpec, link).agent.currentRevision;
    case 'WorkRule': {
      const live = liveRule(store, key);
      if (!live) return createRule(store, { ...spec, key }, link).version;
      const changes: Record<string, unknown> = { package: link ?? live.package, status: spec.status ?? 'enabled' };
      for (const field of RULE_FIELDS) changes[field] = spec[field] ?? (field === 'description' ? '' : field === 'condition' ? true : null);
      return changeRule(store, live, changes).version;
    }
    default:
      return publishVersion(store, kind as VersionedKind, key, spec, link, workspaceId).version as number;
  }
}

/** A console edit: the person's value at `path` (dotted, inside spec), published as the console would. */
export function editInConsole(store: Store, kind: CorePlannedKind, key: string, path: string, value: unknown) {
  const last = published(store, kind, key);
  if (!last || !isLive(store, kind, key)) throw unprocessable('not_published', `${kind}/${key} is not published — apply its package first`);
  const spec = structuredClone(last.spec);
  const before = setPath(spec, path.split('.'), value);
  const version = publish(store, kind, key, spec, null, null);
  store.replaceOrInsert('published', kind, { id: `${kind}/${key}`, spec });
  store.recordConsoleEdit(kind, key, { path, value });
  return { kind, key, path, before: before ?? null, after: value, version };
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
