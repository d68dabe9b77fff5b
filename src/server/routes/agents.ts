import { ADMIN_PRINCIPAL_ID, TENANT_ID, newId, now } from '../identity.js';
import { coreDigest } from '../../json/digest.js';
import { type Route, bodyOf, findOr404 } from '../route.js';
import type { Store } from '../store.js';
import type { CatalogRow, PackageLink } from './catalog.js';

/**
 * Agents: a published spec is a revision; `state` and `placement.replicas` are desired state, not part
 * of the revision, so changing only them moves no revision (catalog.json AgentSpec).
 */
export interface AgentSpec {
  state?: 'running' | 'stopped';
  placement?: { replicas?: number } | 'none' | null;
  displayName: string;
  [field: string]: unknown;
}

interface AgentRevision extends CatalogRow {
  agentId: string;
  agentKey: string;
  revision: number;
  spec: Record<string, unknown>;
  specHash: string;
}

export interface AgentRow extends CatalogRow {
  key: string;
  status: 'active' | 'retired';
  state: 'running' | 'stopped';
  replicas: number;
  currentRevision: number;
  revision: AgentRevision;
  version: number;
}

/** The spec as a revision keeps it: without the desired state. */
function revisionSpec(spec: AgentSpec): Record<string, unknown> {
  const { state: _state, ...rest } = spec;
  if (rest.placement && typeof rest.placement === 'object') {
    const { replicas: _replicas, ...placement } = rest.placement;
    rest.placement = placement;
  }
  return rest;
}

function desiredState(spec: AgentSpec): { state: 'running' | 'stopped'; replicas: number } {
  const replicas = spec.placement === 'none' ? 0 : typeof spec.placement === 'object' && spec.placement?.replicas !== undefined ? spec.placement.replicas : 1;
  return { state: spec.state ?? 'running', replicas };
}

export function currentAgent(store: Store, key: string): AgentRow | undefined {
  return store.byKey<AgentRow>('agents', key)[0];
}

export function validateAgent(store: Store, key: string, spec: AgentSpec) {
  const current = currentAgent(store, key);
  const specHash = coreDigest(revisionSpec(spec));
  const desired = desiredState(spec);
  return {
    key,
    specHash,
    wouldCreateRevision: !current || current.status === 'retired' || current.revision.specHash !== specHash,
    wouldChangeState: current !== undefined && (current.state !== desired.state || current.replicas !== desired.replicas),
    currentRevision: current ? current.currentRevision : null,
  };
}

/** Publishes a spec: a new revision when the spec changed, the desired state always. */
export function publishAgent(store: Store, key: string, spec: AgentSpec, link: PackageLink | null): { agent: AgentRow; created: boolean } {
  const current = currentAgent(store, key);
  const check = validateAgent(store, key, spec);
  const at = now();
  const agentId = current?.id ?? newId();
  let revision = current?.revision;
  if (check.wouldCreateRevision) {
    revision = store.insert<AgentRevision>('agent-revisions', key, {
      id: newId(),
      agentId,
      agentKey: key,
      revision: (current?.currentRevision ?? 0) + 1,
      spec: revisionSpec(spec),
      specHash: check.specHash,
      createdBy: ADMIN_PRINCIPAL_ID,
      createdAt: at,
    });
  }
  const agent: AgentRow = {
    id: agentId,
    tenantId: TENANT_ID,
    key,
    displayName: spec.displayName,
    status: 'active',
    ...desiredState(spec),
    currentRevision: revision!.revision,
    revision: revision!,
    principalId: null,
    workspaceId: null,
    retiredAt: null,
    retiredBy: null,
    version: (current?.version ?? 0) + 1,
    package: link ?? current?.package ?? null,
    createdAt: current?.createdAt ?? at,
    updatedAt: at,
  };
  if (current) store.replace('agents', agent);
  else store.insert('agents', key, agent);
  return { agent, created: !current };
}

export const AGENT_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/agents:validate',
    api: 'core',
    summary: 'What publishing this spec would change (writes nothing)',
    request: 'AgentPublishRequest',
    response: 'AgentValidateOut',
    handle(ctx) {
      const body = bodyOf<{ key: string; spec: AgentSpec }>(ctx);
      return { body: validateAgent(ctx.store, body.key, body.spec) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/agents',
    api: 'core',
    summary: 'Publish an agent (a new revision when the spec changed)',
    request: 'AgentPublishRequest',
    response: 'AgentOut',
    status: 201,
    alsoStatus: 200,
    handle(ctx) {
      const body = bodyOf<{ key: string; spec: AgentSpec }>(ctx);
      const { agent, created } = publishAgent(ctx.store, body.key, body.spec, null);
      return { status: created ? 201 : 200, body: agent };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{ref}',
    api: 'core',
    summary: 'Read an agent: key (current revision) or key@revision',
    response: 'AgentOut',
    handle(ctx) {
      const [key, revisionText] = ctx.params.ref!.split('@') as [string, string | undefined];
      const agent = findOr404(currentAgent(ctx.store, key), `agent ${key}`);
      if (revisionText === undefined) return { body: agent };
      const revision = findOr404(
        ctx.store.byKey<AgentRevision>('agent-revisions', key).find((r) => String(r.revision) === revisionText),
        `revision ${revisionText} of agent ${key}`,
      );
      return { body: { ...agent, revision } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{key}:retire',
    api: 'core',
    summary: 'Retire an agent (a repeated retire answers the same)',
    request: 'CatalogRetireRequest',
    response: 'AgentOut',
    handle(ctx) {
      const agent = findOr404(currentAgent(ctx.store, ctx.params.key!), `agent ${ctx.params.key}`);
      if (agent.status === 'retired') return { body: agent };
      const at = now();
      const retired: AgentRow = { ...agent, status: 'retired', state: 'stopped', retiredAt: at, retiredBy: ADMIN_PRINCIPAL_ID, version: agent.version + 1, updatedAt: at };
      return { body: ctx.store.replace('agents', retired) };
    },
  },
];
