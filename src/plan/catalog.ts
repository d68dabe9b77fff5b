/**
 * The `catalog` section (compat-package-sdk-install §4.5, §5.3): objects the installer writes through their
 * own routes, kind by kind in the reference's order. Objects of core packages whose kind the core plans
 * (TaskType, Agent, Calendar, Process, WorkRule, View) are left to the `core` sections.
 *
 * Every step is idempotent, so an apply stopped half-way is completed by planning again: what was written
 * now matches and drops out of the plan.
 */
import { CORE_PLANNED_KINDS } from '../contract/packages.js';
import type { PackageObject } from '../model/package.js';
import type { Change } from './document.js';
import { Refusal } from '../fs/refusal.js';
import { sameJson } from '../json/canonical.js';
import { changedFields, isSubset, pick, specOf, versionText, type SectionContext, type Step } from './section.js';

const CATALOG_ORDER = ['WorkspaceType', 'Capability', 'ConnectionType', 'Role', 'Skill', 'ArtifactType', 'TaskType', 'Agent', 'ProjectTemplate', 'WorkRule'] as const;
type InstallerKind = (typeof CATALOG_ORDER)[number];

const CORE_PLANNED: ReadonlySet<string> = new Set(CORE_PLANNED_KINDS);

/** The installer's objects in catalog order, without those a core section plans. */
export function installerObjects(ctx: SectionContext): PackageObject[] {
  return CATALOG_ORDER.flatMap((kind) =>
    ctx.workspace.objects(kind).filter((object) => !(ctx.corePackages.has(object.package) && CORE_PLANNED.has(object.kind))));
}

export async function catalogSteps(ctx: SectionContext): Promise<Step[]> {
  const steps: Step[] = [];
  const lists = new Map<string, Promise<Row[]>>();
  // Collections without a key filter are read once per build, not once per object.
  const all = (collection: string): Promise<Row[]> => {
    if (!lists.has(collection)) lists.set(collection, ctx.client.list<Row>(`/api/v1/${collection}`));
    return lists.get(collection)!;
  };
  for (const object of installerObjects(ctx)) steps.push(...(await PLANNERS[object.kind as InstallerKind](ctx, object, specOf(ctx, object), all)));
  return steps;
}

type Planner = (ctx: SectionContext, object: PackageObject, spec: Record<string, unknown>, all: (collection: string) => Promise<Row[]>) => Promise<Step[]>;

interface Row extends Record<string, unknown> {
  id: string;
  version?: number | string;
  status?: string;
}

function change(object: PackageObject, fields: Omit<Change, 'kind' | 'key' | 'package'>): Change {
  const { fields: names, ...rest } = fields;
  return { kind: object.kind, key: object.key, package: object.package, ...(names && names.length > 0 ? { fields: names } : {}), ...rest };
}

function conflict(object: PackageObject, message: string, hint?: string): Refusal {
  return new Refusal('catalog_conflict', `${object.kind}/${object.id} (${object.file}): ${message}`, { hint });
}

const ifMatch = (prefix: string, counter: unknown) => ({ 'If-Match': `"${prefix}-${String(counter)}"` });

/** TaskType and ProjectTemplate: immutable versions; a change is a new version, and older active ones are deprecated. */
function versionedPlanner(collection: 'task-types' | 'project-templates', desiredOf: (spec: Record<string, unknown>) => Record<string, unknown>, subsetFields: readonly string[] = []): Planner {
  return async (ctx, object, spec) => {
    const active = (await ctx.client.list<Row>(`/api/v1/${collection}`, [['key', object.key], ['status', 'active']]))
      .sort((a, b) => Number(a.version) - Number(b.version));
    const expected = { active: active.map((row) => Number(row.version)) };
    const desired = desiredOf(spec);
    const latest = active.at(-1);
    let fields: string[] = [];
    if (latest) {
      const current = await ctx.client.get<Record<string, unknown>>(`/api/v1/${collection}/${latest.id}`);
      fields = Object.keys(desired).filter((field) =>
        !(subsetFields.includes(field) ? isSubset(desired[field], current[field]) : sameJson(desired[field], current[field])));
    }
    const steps: Step[] = [];
    const kept = latest && fields.length === 0 ? latest : undefined;
    if (!kept) {
      steps.push({
        change: change(object, { operation: latest ? 'version' : 'create', fields, expected,
          detail: latest ? `new version (changed ${fields.join(', ')})` : 'new version (not in tenant)' }),
        write: async () => void (await ctx.client.send('POST', `/api/v1/${collection}`, { body: { key: object.key, ...desired } })),
      });
    }
    for (const row of active) {
      if (row === kept) continue;
      steps.push({
        change: change(object, { operation: 'deprecate', expected, version: Number(row.version), detail: `v${String(row.version)} → deprecated` }),
        write: async () => void (await ctx.client.send('POST', `/api/v1/${collection}/${row.id}:deprecate`)),
      });
    }
    return steps;
  };
}

function withDefaults(spec: Record<string, unknown>, defaults: Record<string, unknown>, ifPresent: readonly string[]): Record<string, unknown> {
  const desired: Record<string, unknown> = {};
  for (const [field, fallback] of Object.entries(defaults)) desired[field] = spec[field] ?? fallback;
  for (const field of ifPresent) if (spec[field] !== undefined) desired[field] = spec[field];
  return desired;
}

function taskTypeDesired(spec: Record<string, unknown>): Record<string, unknown> {
  const desired = withDefaults(spec, { displayName: '', description: '', fieldSchema: {}, execution: null, approvalSchema: {} },
    ['lifecycleSchema', 'contextSchema', 'instructions', 'completionSchema', 'artifactSchema', 'acceptance']);
  const execution = desired.execution as Record<string, unknown> | null;
  if (execution && typeof execution === 'object' && execution.inputs === undefined) desired.execution = { ...execution, inputs: '$.customFields' };
  return desired;
}

function projectTemplateDesired(spec: Record<string, unknown>): Record<string, unknown> {
  return withDefaults(spec, { displayName: '', description: '', fieldSchema: {}, defaultViews: [], governanceSchema: {}, memoryDefaults: {} },
    ['lifecycleSchema', 'defaultConfig']);
}

/** Media types lower-cased, parameters dropped, each once. */
function mediaTypes(spec: Record<string, unknown>): string[] {
  const listed = Array.isArray(spec.mediaTypes) ? (spec.mediaTypes as unknown[]) : ['*/*'];
  return [...new Set(listed.map((type) => String(type).split(';')[0]!.trim().toLowerCase()))];
}

const artifactType: Planner = async (ctx, object, spec) => {
  const rows = await ctx.client.list<Row>('/api/v1/artifact-types', [['key', object.key]]);
  const latest = rows.sort((a, b) => Number(a.version) - Number(b.version)).at(-1);
  const desired = { ...withDefaults(spec, { displayName: '', description: '', metadataSchema: {} }, ['maxBytes']), mediaTypes: mediaTypes(spec) };
  const fields = latest ? changedFields(desired, latest) : [];
  if (latest && fields.length === 0) return [];
  return [{
    change: change(object, { operation: latest ? 'version' : 'create', fields, expected: { latest: latest ? Number(latest.version) : null },
      detail: latest ? `new version (changed ${fields.join(', ')})` : 'new version (not in tenant)' }),
    write: async () => void (await ctx.client.send('POST', '/api/v1/artifact-types', { body: { key: object.key, ...desired } })),
  }];
};

const agent: Planner = async (ctx, object, spec) => {
  const pkg = ctx.workspace.package(object.package);
  const body = { key: object.key, spec, package: { key: object.package, version: pkg?.version ?? '' } };
  const answer = await ctx.client.send<{ currentRevision: number | null; wouldCreateRevision: boolean; wouldChangeState: boolean }>(
    'POST', '/api/v1/agents:validate', { body });
  if (!answer.wouldCreateRevision && !answer.wouldChangeState) return [];
  const operation = answer.currentRevision === null ? 'create' : answer.wouldCreateRevision ? 'version' : 'patch';
  return [{
    change: change(object, { operation, ...(operation === 'patch' ? { fields: ['state'] } : {}), expected: { revision: answer.currentRevision },
      detail: operation === 'create' ? 'new agent' : operation === 'version' ? 'new revision' : 'state changes' }),
    write: async () => void (await ctx.client.send('POST', '/api/v1/agents', { body })),
  }];
};

/** WorkspaceType and Role: rows changed in place under If-Match. */
function rowPlanner(options: {
  collection: string; etag: string; match: (row: Row, key: string) => boolean; createBody: (key: string, desired: Record<string, unknown>) => Record<string, unknown>;
  desired: (spec: Record<string, unknown>) => Record<string, unknown>;
}): Planner {
  return async (ctx, object, spec, all) => {
    const row = (await all(options.collection)).find((candidate) => options.match(candidate, object.key));
    if (row && row.status !== undefined && row.status !== 'active') throw conflict(object, `the core holds it with status ${row.status}`);
    const desired = options.desired(spec);
    if (!row) {
      return [{
        change: change(object, { operation: 'create', detail: 'will be created' }),
        write: async () => void (await ctx.client.send('POST', `/api/v1/${options.collection}`, { body: options.createBody(object.key, desired) })),
      }];
    }
    const fields = changedFields(desired, row);
    if (fields.length === 0) return [];
    return [{
      change: change(object, { operation: 'patch', fields, expected: { version: row.version }, detail: `changed ${fields.join(', ')}` }),
      write: async () => void (await ctx.client.send('PATCH', `/api/v1/${options.collection}/${row.id}`, {
        body: pick(desired, fields), headers: ifMatch(options.etag, row.version) })),
    }];
  };
}

const workspaceType = rowPlanner({
  collection: 'workspace-types', etag: 'workspace_type', match: (row, key) => row.key === key,
  desired: (spec) => withDefaults(spec, { displayName: '', description: '', fieldSchema: {}, allowedChildTypes: [] }, []),
  createBody: (key, desired) => ({ key, ...desired }),
});

const role = rowPlanner({
  collection: 'roles', etag: 'role', match: (row, key) => row.slug === key && (row.workspaceId ?? null) === null,
  desired: (spec) => withDefaults(spec, { name: '', description: '' }, []),
  createBody: (slug, desired) => ({ slug, ...desired }),
});

const capability: Planner = async (ctx, object, spec, all) => {
  const row = (await all('capabilities')).find((candidate) => candidate.name === object.key);
  const description = (spec.description as string | undefined) ?? '';
  if (row) {
    if ((row.description ?? '') !== description) ctx.warn(`!! Capability/${object.key}: the description differs on the core, and the API cannot change it`);
    return [];
  }
  return [{
    change: change(object, { operation: 'create', detail: 'will be created' }),
    write: async () => void (await ctx.client.send('POST', '/api/v1/capabilities', { body: { name: object.key, description } })),
  }];
};

const SKILL_IMMUTABLE = ['protocol', 'sideEffects', 'riskLevel', 'contract'] as const;
const SKILL_FIELDS = ['description', ...SKILL_IMMUTABLE, 'config', 'inputSchema', 'outputSchema'] as const;

const skill: Planner = async (ctx, object, spec) => {
  const version = versionText(object, spec, '1.0.0');
  const listed = (await ctx.client.list<Row>('/api/v1/skills', [['name', object.key]])).find((row) => String(row.version) === version);
  if (!listed) {
    return [{
      change: change(object, { operation: 'create', version, detail: `new version ${version}` }),
      write: async () => void (await ctx.client.send('POST', '/api/v1/skills', { body: { name: object.key, version, ...pick(spec, SKILL_FIELDS) } })),
    }];
  }
  const row = await ctx.client.get<Row & { rowVersion: number; contract?: Record<string, unknown> | null }>(`/api/v1/skills/${listed.id}`);
  let endpoint: string | undefined;
  for (const field of SKILL_IMMUTABLE.filter((name) => spec[name] !== undefined)) {
    if (field === 'contract' ? isSubset(spec.contract, row.contract) : sameJson(spec[field], row[field])) continue;
    endpoint = field === 'contract' ? movedEndpoint(spec.contract, row.contract) : undefined;
    if (endpoint === undefined) throw conflict(object, `${field} differs from version ${version} on the core, and a version is immutable`, 'bump spec.version');
  }
  const mutable = spec.contract !== undefined ? ['description', 'config'] : ['description', 'config', 'inputSchema', 'outputSchema'];
  const desired = pick(spec, mutable);
  const fields = changedFields(desired, row);
  if (endpoint !== undefined) fields.push('endpoint');
  if (fields.length === 0) return [];
  return [{
    change: change(object, { operation: 'patch', fields, expected: { rowVersion: row.rowVersion }, version, detail: `changed ${fields.join(', ')}` }),
    write: async () => void (await ctx.client.send('PATCH', `/api/v1/skills/${row.id}`, {
      body: { ...pick(desired, fields), ...(endpoint !== undefined ? { endpoint } : {}) }, headers: ifMatch('skill', row.rowVersion) })),
  }];
};

/** The new endpoint when the contracts differ only in `implementation.endpoint`; else undefined. */
function movedEndpoint(wanted: unknown, actual: unknown): string | undefined {
  const endpoint = (wanted as { implementation?: { endpoint?: unknown } } | null)?.implementation?.endpoint;
  if (typeof endpoint !== 'string' || actual === null || typeof actual !== 'object') return undefined;
  const implementation = (actual as { implementation?: Record<string, unknown> }).implementation ?? {};
  return isSubset(wanted, { ...actual, implementation: { ...implementation, endpoint } }) ? endpoint : undefined;
}

const CONNECTION_FIELDS = ['displayName', 'description', 'auth', 'oauth2', 'accountField', 'settingsSchema', 'defaultKey'] as const;

const connectionType: Planner = async (ctx, object, spec) => {
  // An integer in the reference (connectionTypeSpec.version), in the plan, the request and the core's answer.
  const version = spec.version as number;
  const desired = pick(spec, CONNECTION_FIELDS);
  const row = (await ctx.client.list<Row & { rowVersion: number; spec: unknown }>('/api/v1/connection-types', [['key', object.key]]))
    .find((candidate) => candidate.version === version);
  if (!row) {
    return [{
      change: change(object, { operation: 'create', version, detail: `new version ${version}` }),
      write: async () => void (await ctx.client.send('POST', '/api/v1/connection-types', { body: { key: object.key, version, spec: desired } })),
    }];
  }
  if (!sameJson(desired, row.spec)) throw conflict(object, `version ${version} on the core has another spec, and a version is immutable`, 'bump spec.version');
  if (row.status === 'disabled') ctx.warn(`ConnectionType/${object.key}@${version} is disabled on the core; the installer leaves it so`);
  if (row.status !== 'deprecated') return [];
  return [{
    change: change(object, { operation: 'patch', fields: ['status'], expected: { rowVersion: row.rowVersion, status: row.status }, version, detail: 'deprecated → active' }),
    write: async () => void (await ctx.client.send('PATCH', `/api/v1/connection-types/${encodeURIComponent(object.key)}@${version}`, {
      body: { status: 'active' }, headers: ifMatch('connection-type', row.rowVersion) })),
  }];
};

const RULE_FIELDS = ['description', 'trigger', 'condition', 'interpretation', 'action', 'identity'] as const;

const workRule: Planner = async (ctx, object, spec) => {
  const current = (await ctx.client.list<Row & { workspaceId?: string | null }>('/api/v1/rules', [['key', object.key]]))
    .find((row) => row.status !== 'archived');
  const desired = { ...withDefaults(spec, { description: '', condition: true, interpretation: null, identity: null }, ['trigger', 'action']) };
  const status = (spec.status as string | undefined) ?? 'enabled';
  if (!current) {
    return [{
      change: change(object, { operation: 'create', detail: `new (${status})` }),
      write: async () => void (await ctx.client.send('POST', '/api/v1/rules', { body: {
        key: object.key, ...pick(desired, RULE_FIELDS), status, ...(spec.workspaceId !== undefined ? { workspaceId: spec.workspaceId } : {}) } })),
    }];
  }
  if (spec.workspaceId !== undefined && (current.workspaceId ?? null) !== spec.workspaceId) {
    throw conflict(object, `the rule lives in workspace ${String(current.workspaceId)} on the core; a rule cannot move`, 'retire it and create one under another key');
  }
  const expected = { version: current.version, status: current.status };
  const steps: Step[] = [];
  const fields = changedFields(desired, current);
  if (fields.length > 0) {
    steps.push({
      change: change(object, { operation: 'patch', fields, expected, detail: `changed ${fields.join(', ')}` }),
      write: async () => void (await ctx.client.send('PATCH', `/api/v1/rules/${current.id}`, { body: pick(desired, fields), headers: ifMatch('rule', current.version) })),
    });
  }
  if (status !== current.status) {
    const operation = status === 'disabled' ? 'disable' : 'enable';
    steps.push({
      change: change(object, { operation, expected, detail: `${String(current.status)} → ${status}` }),
      write: async () => void (await ctx.client.send('POST', `/api/v1/rules/${current.id}:${operation}`)),
    });
  }
  return steps;
};

const PLANNERS: Record<InstallerKind, Planner> = {
  WorkspaceType: workspaceType,
  Capability: capability,
  ConnectionType: connectionType,
  Role: role,
  Skill: skill,
  ArtifactType: artifactType,
  TaskType: versionedPlanner('task-types', taskTypeDesired),
  Agent: agent,
  ProjectTemplate: versionedPlanner('project-templates', projectTemplateDesired, ['defaultConfig']),
  WorkRule: workRule,
};
