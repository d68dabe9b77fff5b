/**
 * `/packages:plan` as the core builds it (compat-core-packages §4): the package read as the core reads it,
 * each TaskType, Agent, Calendar, Process, WorkRule and View compared in its catalog form with the latest
 * version in the catalog — fields owned by the package or, when someone changed them since the last apply,
 * by the console — renames, views the package no longer brings, and a `planHash` over the files, the state of
 * the touched keys (`catalogEtag`) and the whole plan. `/packages:apply` builds the same plan again and
 * writes it change by change (`publishChange`).
 */
import { CORE_PLANNED_KINDS, type CorePlannedKind, type PackageFile, type PackagePlan, type PlanChange, type PlanField, type PlanOutside, type PlanProcess } from '../contract/packages.js';
import { isRecord } from '../json/guards.js';
import { childPointer } from '../json/pointer.js';
import { type Form, KIND_CATALOGS, type Latest, activeTaskTypes, deprecateTaskTypes } from './catalog-forms.js';
import { CoreError } from './errors.js';
import { now } from './identity.js';
import { byText, compactJson, sameJson } from '../json/canonical.js';
import { coreDigest, digestOfText } from '../json/digest.js';
import { type LinkRecord, dropLink, linkOf, linkedKeys, writeLink } from './package-links.js';
import { type PackageSource, type SourceObject, byPath } from './package-source.js';
import { type Problem, problemIn, sortProblems, withoutRepeats } from './problems.js';
import type { PackageLink } from './routes/catalog.js';
import { versionStabilityProblems } from './process-versions.js';
import { restoreKey, retireKey, retirementOf } from './routes/processes.js';
import type { Store } from './store.js';

export interface PlanRequest {
  files: PackageFile[];
  workspaceId: string | null;
  overwriteConsole: boolean;
}

/** The package read and checked before the transaction: it depends on the files alone. */
export interface CheckedPackage {
  source: PackageSource;
  /** The core's checks of the objects (see core-checks.ts). */
  checks: Problem[];
}

/** A change with what apply needs to write it. */
export interface PlannedChange {
  change: PlanChange;
  /** The object of the package (none for a view it no longer brings). */
  object?: SourceObject;
  /** What the package wants (its form), and what apply publishes: kept console fields keep their latest value. */
  wanted?: Form;
  published?: Form;
  /** The version the latest catalog state has (apply answers it for an unchanged or restored key). */
  latestVersion: number | null;
  /** A Process takes its version from the package. */
  toVersion?: number;
}

export interface BuiltPlan {
  plan: PackagePlan;
  planned: PlannedChange[];
  /** The keys the plan read (its `catalogEtag` covers them). */
  touched: TouchedKey[];
}

export interface TouchedKey {
  kind: CorePlannedKind;
  key: string;
}

const KIND_ORDER = new Map<string, number>(CORE_PLANNED_KINDS.map((kind, index) => [kind, index]));
const RENAMED_KINDS = new Set(['Process', 'Calendar']);
/** Kinds of the package the core neither plans nor publishes itself (a Component is inlined into views). */
const NOT_OUTSIDE = new Set(['Package', 'Installation', 'Component']);

function isPlanned(kind: string): kind is CorePlannedKind {
  return KIND_ORDER.has(kind);
}

/** What a plan sees of the request and the catalog while it compares one object. */
interface Comparison {
  store: Store;
  reads: CatalogReads;
  source: PackageSource;
  request: PlanRequest;
  /** `Kind/to` → the key it is renamed from. */
  renames: Map<string, string>;
  problems: Problem[];
}

/** Builds the plan (§4.2 steps 3–10, 15) on the store as it is; writes nothing. */
export function buildPlan(store: Store, request: PlanRequest, checked: CheckedPackage): BuiltPlan {
  requireWorkspace(store, request.workspaceId);
  const { source } = checked;
  const reads = new CatalogReads(store);
  const comparison: Comparison = { store, reads, source, request, renames: new Map(), problems: [...source.problems, ...checked.checks] };
  readRenames(comparison);
  const objects = source.objects.filter((object) => isPlanned(object.kind) && !object.unresolved).sort(byKindAndKey);
  const planned = objects.flatMap((object) => planObject(object, comparison) ?? []);
  planned.push(...goneViews(comparison));
  planned.sort((a, b) => byKindAndKey(a.change, b.change));
  const touched = touchedKeys(planned, comparison);
  const catalogEtag = etagOf(reads, touched);
  const changes = planned.map((p) => p.change);
  const processes = planned.flatMap((p) => processOf(p) ?? []);
  const planHash = coreDigest({
    package: coreDigest(byPath(request.files).map(({ path, content }) => ({ path, content }))),
    catalogEtag,
    changes,
    processes: processes.map(({ key, fromVersion, toVersion, instances }) => ({ key, fromVersion, toVersion, instances })),
    overwriteConsole: request.overwriteConsole,
  });
  const plan: PackagePlan = {
    planHash,
    catalogEtag,
    package: { key: source.key, version: source.version },
    changes,
    outside: outsideOf(source),
    processes,
    regulationCoverage: [],
    problems: sortProblems(withoutRepeats(comparison.problems)),
    createdAt: now(),
  };
  return { plan, planned, touched };
}

/** The link apply gives every object it plans. */
export function packageLink(plan: PackagePlan): PackageLink {
  return { key: plan.package.key ?? '', version: plan.package.version, installHash: plan.planHash, installedAt: now() };
}

/** Writes one change by its kind's own command (§5.2 steps 7, 9, 10); the version the key has after it. */
export function publishChange(store: Store, planned: PlannedChange, link: PackageLink): number | null {
  const { kind, key, action, renamedFrom, deprecates } = planned.change;
  const catalog = KIND_CATALOGS[kind];
  let version = planned.latestVersion;
  if (action === 'retire') {
    retireKey(store, kind as 'View', key, `no longer in package ${link.key}`);
    return version;
  }
  if (action === 'restore') {
    restoreKey(store, kind as 'Process' | 'Calendar' | 'View', key);
  } else if (action !== 'unchanged') {
    version = catalog.publish(store, key, planned.published!, link, planned.toVersion);
  }
  if (kind === 'TaskType') deprecateTaskTypes(store, key, deprecates);
  if (renamedFrom !== null) {
    dropLink(store, kind, renamedFrom);
    retireKey(store, kind as 'Process' | 'Calendar', renamedFrom, `renamed by package ${link.key}`);
  }
  writeLink(store, kind, key, link, planned.wanted!, catalog.collection);
  return version;
}

function requireWorkspace(store: Store, workspaceId: string | null): void {
  if (workspaceId !== null && !store.get('workspaces', workspaceId.toLowerCase())) {
    throw new CoreError(404, 'not_found', 'Workspace not found', { workspaceId });
  }
}

function byKindAndKey(a: { kind: string; key: string }, b: { kind: string; key: string }): number {
  return (KIND_ORDER.get(a.kind) ?? 99) - (KIND_ORDER.get(b.kind) ?? 99) || byText(a.key, b.key);
}

/** Objects the core does not plan, and who applies them, sorted by kind and key. */
function outsideOf(source: PackageSource): PlanOutside[] {
  return source.objects
    .filter((object) => !isPlanned(object.kind) && !NOT_OUTSIDE.has(object.kind))
    .map((object): PlanOutside => ({ kind: object.kind, key: object.key, appliedBy: object.kind === 'NotificationRule' ? 'notification-service' : 'installer' }))
    .sort((a, b) => byText(a.kind, b.kind) || byText(a.key, b.key));
}

/** `spec.renames` of the manifest (§4.2 step 6): only a Process or a Calendar moves to a new key. */
function readRenames(comparison: Comparison): void {
  const manifest = comparison.source.manifest;
  const renames = manifest?.spec.renames;
  if (!manifest || !Array.isArray(renames)) return;
  const from = new Set<string>();
  const to = new Set<string>();
  const inPackage = (kind: string, key: string) => comparison.source.objects.some((object) => object.kind === kind && object.key === key);
  renames.forEach((entry, index) => {
    const at = `/spec/renames/${index}`;
    if (!isRecord(entry) || typeof entry.kind !== 'string' || typeof entry.from !== 'string' || typeof entry.to !== 'string') return; // the schema's to report
    const refuse = (pointer: string, message: string) => comparison.problems.push(problemIn(manifest.document, 'invalid_rename', pointer, message));
    const id = (key: string) => `${entry.kind as string}/${key}`;
    if (!RENAMED_KINDS.has(entry.kind)) {
      if (isPlanned(entry.kind)) comparison.problems.push(problemIn(manifest.document, 'rename_not_planned', at, `a ${entry.kind} keeps its key: only a Process or a Calendar is renamed`, { severity: 'warning' }));
      return;
    }
    if (entry.from === entry.to) return refuse(at, `${id(entry.from)} is renamed to itself`);
    if (!inPackage(entry.kind, entry.to)) return refuse(`${at}/to`, `${id(entry.to)} is not in the package`);
    if (inPackage(entry.kind, entry.from)) return refuse(`${at}/from`, `${id(entry.from)} is still in the package`);
    if (from.has(id(entry.from))) return refuse(`${at}/from`, `${id(entry.from)} is renamed twice`);
    if (to.has(id(entry.to))) return refuse(`${at}/to`, `two keys are renamed to ${id(entry.to)}`);
    from.add(id(entry.from));
    to.add(id(entry.to));
    comparison.renames.set(id(entry.to), entry.from);
  });
}

/** One object compared with the catalog (§4.2 step 10); undefined when it cannot be planned. */
function planObject(object: SourceObject, comparison: Comparison): PlannedChange | undefined {
  const { store, reads, source, request, problems } = comparison;
  const kind = object.kind as CorePlannedKind;
  const toVersion = kind === 'Process' ? processVersion(object, problems) : undefined;
  if (kind === 'Process' && toVersion === undefined) return undefined;
  const wanted = KIND_CATALOGS[kind].form(object.spec);
  let latest = reads.latest(kind, object.key);
  let link = reads.link(kind, object.key);
  let renamedFrom: string | null = null;
  const renameSource = comparison.renames.get(`${kind}/${object.key}`);
  const moving = renameSource === undefined ? undefined : reads.latest(kind, renameSource);
  if (renameSource !== undefined && moving && !moving.retired) {
    if (latest) problems.push(problemIn(object.document, 'rename_target_exists', '/key', `${kind} ${object.key} exists already: ${renameSource} cannot be renamed to it`));
    else {
      latest = moving;
      link = reads.link(kind, renameSource);
      renamedFrom = renameSource;
    }
  }
  if (kind === 'Agent' && latest?.retired) {
    problems.push(problemIn(object.document, 'agent_retired', '/key', `agent ${object.key} is retired: a package does not bring it back`));
    return undefined;
  }
  if (link && source.key !== null && link.package.key !== source.key) {
    problems.push(problemIn(object.document, 'package_owner_changed', '/key', `${kind} ${object.key} was installed by package ${link.package.key}; this apply makes it package ${source.key}'s`, { severity: 'warning' }));
  }
  if (kind === 'WorkRule' && latest && !sameJson(latest.form.workspaceId ?? null, wanted.workspaceId ?? null)) {
    problems.push(problemIn(object.document, 'rule_workspace_immutable', '/spec/workspaceId', `the live rule ${object.key} works in workspace ${String(latest.form.workspaceId)}: a rule does not move to another workspace`));
  }
  const { fields, published } = compare(reads, kind, wanted, latest, latest?.retired ? undefined : link, request.overwriteConsole);
  const action = renamedFrom !== null ? 'rename' : !latest ? 'create' : fields.some((field) => field.applies) ? 'update' : latest.retired ? 'restore' : 'unchanged';
  if (kind === 'Process' && latest && (action === 'update' || action === 'rename') && toVersion! <= latest.version) {
    problems.push(problemIn(object.document, 'process_version_conflict', '/spec/version', `version ${toVersion} is not above the latest version ${latest.version} of process ${renamedFrom ?? object.key}`, {
      hint: 'give the changed process a higher spec.version',
    }));
  }
  if (kind === 'Process' && latest && (action === 'update' || action === 'rename')) problems.push(...versionStabilityProblems(object, latest.form, latest.version));
  if (kind === 'Process' && action !== 'unchanged') calendarInUse(object, comparison);
  const change: PlanChange = { kind, key: object.key, action, renamedFrom, fields, deprecates: kind === 'TaskType' ? deprecated(store, object.key, action) : [] };
  return { change, object, wanted, published, latestVersion: latest?.version ?? null, ...(toVersion !== undefined ? { toVersion } : {}) };
}

/** A Process is versioned by its package: `spec.version`, a positive integer. */
function processVersion(object: SourceObject, problems: Problem[]): number | undefined {
  const version = object.spec.version;
  if (typeof version === 'number' && Number.isInteger(version) && version >= 1) return version;
  problems.push(problemIn(object.document, 'invalid_document', '/spec/version', 'a process names its version: spec.version is a positive integer'));
  return undefined;
}

/** A process must not name a calendar the catalog retired, unless the package brings the calendar back. */
function calendarInUse(object: SourceObject, comparison: Comparison): void {
  const calendar = object.spec.calendar;
  if (typeof calendar !== 'string' || !retirementOf(comparison.store, 'Calendar', calendar)) return;
  if (comparison.source.objects.some((other) => other.kind === 'Calendar' && other.key === calendar)) return;
  comparison.problems.push(problemIn(object.document, 'calendar_retired', '/spec/calendar', `calendar ${calendar} is retired: a new process version cannot name it`));
}

/**
 * The fields of an object (§4.4): on create every member of the form; otherwise the members whose latest value
 * differs (absent and null differ). A field is the console's when the last apply wanted another value than the
 * latest has — someone changed it since — and then it is published only with `overwriteConsole`.
 */
function compare(
  reads: CatalogReads, kind: CorePlannedKind, wanted: Form, latest: Latest | undefined, link: LinkRecord | undefined, overwriteConsole: boolean,
): { fields: PlanField[]; published: Form } {
  if (!latest) {
    return { fields: Object.entries(wanted).map(([member, after]) => ({ path: childPointer('/spec', member), before: null, after, owner: 'package', applies: true })), published: wanted };
  }
  if (reads.text(wanted) === reads.text(latest.form)) return { fields: [], published: wanted };
  const published = { ...wanted };
  const members = [...new Set([...Object.keys(wanted), ...Object.keys(latest.form)])];
  const fields = members
    .filter((member) => !sameMember(wanted, latest.form, member))
    .map((member): PlanField => {
      const console = link?.wanted != null && !(kind === 'Process' && member === 'version') && !sameMember(latest.form, link.wanted, member);
      const applies = overwriteConsole || !console;
      if (!applies) {
        if (member in latest.form) published[member] = latest.form[member];
        else delete published[member];
      }
      return { path: childPointer('/spec', member), before: latest.form[member] ?? null, after: wanted[member] ?? null, owner: console ? 'console' : 'package', applies };
    });
  return { fields, published };
}

function sameMember(a: Form, b: Form, member: string): boolean {
  return member in a === member in b && sameJson(a[member], b[member]);
}

/** A TaskType's active versions the apply deprecates: all but the one it keeps (the latest, when unchanged). */
function deprecated(store: Store, key: string, action: string): number[] {
  const active = activeTaskTypes(store, key).map((row) => row.version as number);
  return action === 'unchanged' ? active.slice(0, -1) : active;
}

/** Views the package brought before and no longer brings are retired (§4.2 step 8). */
function goneViews(comparison: Comparison): PlannedChange[] {
  const { store, source } = comparison;
  if (source.key === null) return [];
  const brought = new Set(source.objects.filter((object) => object.kind === 'View').map((object) => object.key));
  return linkedKeys(store, 'View', source.key)
    .filter((key) => !brought.has(key) && !retirementOf(store, 'View', key))
    .map((key) => ({
      change: { kind: 'View', key, action: 'retire', renamedFrom: null, fields: [], deprecates: [] },
      latestVersion: comparison.reads.latest('View', key)?.version ?? null,
    }));
}

/** A process whose version changes, with its open instances (the local core runs none) and their fate. */
function processOf(planned: PlannedChange): PlanProcess | undefined {
  const { kind, key, action } = planned.change;
  if (kind !== 'Process' || action === 'unchanged' || action === 'restore') return undefined;
  return { key, fromVersion: planned.latestVersion, toVersion: planned.toVersion!, behaviour: null, instances: [], deadlines: [], deadlinesTotal: 0 };
}

/** Every key the plan reads: its objects, the keys they are renamed from, the views it retires. */
function touchedKeys(planned: readonly PlannedChange[], comparison: Comparison): TouchedKey[] {
  const keys: TouchedKey[] = planned.map(({ change }) => ({ kind: change.kind, key: change.key }));
  for (const [id, from] of comparison.renames) keys.push({ kind: id.slice(0, id.indexOf('/')) as CorePlannedKind, key: from });
  return keys;
}

/** `catalogEtag` (§4.5): the latest version, its form, the last apply's wish, the owner and the retirement of each touched key. */
export function etagOf(reads: CatalogReads, keys: readonly TouchedKey[]): string {
  const entries = keys.map(({ kind, key }) => {
    const latest = reads.latest(kind, key);
    const link = reads.link(kind, key);
    return {
      kind, key, version: latest?.version ?? null, hash: latest ? digestOfText(reads.text(latest.form)) : null, applied: link?.wantedHash ?? null,
      package: link?.package.key ?? null, retired: latest?.retired ?? false,
    };
  });
  return coreDigest(entries.sort(byKindAndKey));
}

/** The catalog as one plan reads it: each key's latest version and link read once, each form written out once. */
export class CatalogReads {
  private readonly latests = new Map<string, Latest | undefined>();
  private readonly links = new Map<string, LinkRecord | undefined>();
  private readonly texts = new WeakMap<Form, string>();

  constructor(private readonly store: Store) {}

  latest(kind: CorePlannedKind, key: string): Latest | undefined {
    const id = `${kind}/${key}`;
    if (!this.latests.has(id)) this.latests.set(id, KIND_CATALOGS[kind].latest(this.store, key));
    return this.latests.get(id);
  }

  link(kind: CorePlannedKind, key: string): LinkRecord | undefined {
    const id = `${kind}/${key}`;
    if (!this.links.has(id)) this.links.set(id, linkOf(this.store, kind, key));
    return this.links.get(id);
  }

  /** The canonical JSON of a form: what its hash covers and what equality compares. */
  text(form: Form): string {
    let text = this.texts.get(form);
    if (text === undefined) this.texts.set(form, (text = compactJson(form)));
    return text;
  }
}
