/**
 * Each kind `/packages:plan` plans, as the core compares and publishes it (compat-core-packages §4.2 step 10):
 * the *form* a spec is compared in (a TaskType with every field's default, an Agent's revision body with its
 * desired state, a WorkRule's normalised members, the stored spec of a Process, Calendar or View), the latest
 * version it is compared with, and the kind's own command that publishes a new one.
 */
import type { CorePlannedKind } from '../contract/packages.js';
import { isRecord } from '../json/guards.js';
import { type AgentSpec, currentAgent, publishAgent } from './routes/agents.js';
import { type CatalogRow, type PackageLink, createVersion, deprecateVersion } from './routes/catalog.js';
import { COLLECTION_OF, latestVersionRow, publishVersion, retirementOf } from './routes/processes.js';
import { RULE_FIELDS, changeRule, createRule, liveRule } from './routes/rules.js';
import type { Store } from './store.js';

export type Form = Record<string, unknown>;

/** The version a plan compares with. */
export interface Latest {
  form: Form;
  version: number;
  /** The key is retired (a Process, Calendar or View brought back by `restore`; an Agent the package cannot bring back). */
  retired: boolean;
}

export interface KindCatalog {
  /** The collection of its catalog rows (all versions of a key are linked to the package). */
  collection: string;
  /** A package spec in the form it is compared and published in. */
  form(spec: Form): Form;
  latest(store: Store, key: string): Latest | undefined;
  /** Publishes `form` by the kind's own command, as version `version` when the kind takes it from the package; the version it got. */
  publish(store: Store, key: string, form: Form, link: PackageLink | null, version?: number): number;
}

/** Every member of a task type version, with the default a missing one gets. */
const TASK_TYPE_DEFAULTS: Readonly<Form> = {
  displayName: undefined, description: '', fieldSchema: {}, lifecycleSchema: null, execution: null, approvalSchema: {}, contextSchema: {},
  instructions: '', completionSchema: {}, artifactSchema: {}, acceptance: [], executorRoles: [],
};

/** The members `defaults` names, each as `source` gives it or else its default (a null given stays null). */
function withDefaults(source: Form, defaults: Readonly<Form>): Form {
  return Object.fromEntries(
    Object.entries(defaults).map(([name, fallback]) => [name, source[name] !== undefined ? source[name] : fallback]).filter(([, value]) => value !== undefined),
  );
}

const taskTypes: KindCatalog = {
  collection: 'task-types',
  form: (spec) => withDefaults(spec, TASK_TYPE_DEFAULTS),
  latest(store, key) {
    const row = activeTaskTypes(store, key).at(-1);
    return row && { form: withDefaults(row, TASK_TYPE_DEFAULTS), version: row.version as number, retired: false };
  },
  publish: (store, key, form, link) => createVersion(store, 'task-types', key, form, link).version as number,
};

/** The active versions of a task type, oldest first. */
export function activeTaskTypes(store: Store, key: string): CatalogRow[] {
  return store.byKey<CatalogRow>('task-types', key).filter((row) => row.status === 'active').sort((a, b) => (a.version as number) - (b.version as number));
}

/** Deprecates the versions the plan names (all active versions but the one it keeps). */
export function deprecateTaskTypes(store: Store, key: string, versions: readonly number[]): void {
  for (const row of activeTaskTypes(store, key)) if (versions.includes(row.version as number)) deprecateVersion(store, 'task-types', row);
}

/** An agent as the core compares it: its revision body, its desired state, and its replicas inside a placement. */
function agentForm(spec: Form, state: unknown, replicas: unknown): Form {
  const form: Form = { ...spec, state: state ?? 'running' };
  if (isRecord(spec.placement)) form.placement = { ...spec.placement, replicas: replicas ?? 1 };
  return form;
}

const agents: KindCatalog = {
  collection: 'agents',
  form: (spec) => agentForm(spec, spec.state, isRecord(spec.placement) ? spec.placement.replicas : undefined),
  latest(store, key) {
    const agent = currentAgent(store, key);
    return agent && { form: agentForm(agent.revision.spec, agent.state, agent.replicas), version: agent.currentRevision, retired: agent.status === 'retired' };
  },
  publish: (store, key, form, link) => publishAgent(store, key, form as AgentSpec, link).agent.currentRevision,
};

/** A work rule's members with their defaults; the workspace is fixed once the rule is live. */
const RULE_DEFAULTS: Readonly<Form> = {
  description: '', trigger: undefined, condition: true, interpretation: null, action: undefined, identity: null, status: 'enabled', workspaceId: null,
};

const rules: KindCatalog = {
  collection: 'rules',
  form: (spec) => withDefaults(spec, RULE_DEFAULTS),
  latest(store, key) {
    const rule = liveRule(store, key);
    return rule && { form: withDefaults(rule, RULE_DEFAULTS), version: rule.version, retired: false };
  },
  publish(store, key, form, link) {
    const live = liveRule(store, key);
    if (!live) return createRule(store, { ...form, key }, link).version;
    const changes: Form = { package: link ?? live.package, status: form.status };
    for (const field of RULE_FIELDS) changes[field] = form[field];
    return changeRule(store, live, changes).version;
  },
};

/** Processes, calendars and views: immutable versions of their spec; a key is retired as a whole. */
function versioned(kind: 'Process' | 'Calendar' | 'View'): KindCatalog {
  return {
    collection: COLLECTION_OF[kind],
    form: (spec) => spec,
    latest(store, key) {
      const row = latestVersionRow(store, kind, key);
      return row && { form: row.spec as Form, version: row.version as number, retired: retirementOf(store, kind, key) !== undefined };
    },
    publish: (store, key, form, link, version) => publishVersion(store, kind, key, form, link, version).version as number,
  };
}

export const KIND_CATALOGS: Readonly<Record<CorePlannedKind, KindCatalog>> = {
  TaskType: taskTypes,
  Agent: agents,
  Calendar: versioned('Calendar'),
  Process: versioned('Process'),
  WorkRule: rules,
  View: versioned('View'),
};
