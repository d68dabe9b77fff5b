import { conflict } from '../errors.js';
import { TENANT_ID, newId, now } from '../identity.js';
import { LIST_QUERY, type Route, type RouteContext, bodyOf, etag, findOr404, page, requireIfMatch } from '../route.js';
import type { Store } from '../store.js';
import type { CatalogRow, PackageLink } from './catalog.js';

/**
 * Work rules: one live (not archived) rule per key, changed under If-Match `"rule-<version>"`; DELETE
 * archives. Every change moves `version`.
 */
export interface RuleRow extends CatalogRow {
  key: string;
  status: 'enabled' | 'disabled' | 'archived';
  version: number;
}

export const RULE_FIELDS = ['description', 'trigger', 'condition', 'interpretation', 'action', 'identity'] as const;

export function liveRule(store: Store, key: string): RuleRow | undefined {
  return store.byKey<RuleRow>('rules', key).find((r) => r.status !== 'archived');
}

export function createRule(store: Store, body: Record<string, unknown> & { key: string }, link: PackageLink | null): RuleRow {
  if (liveRule(store, body.key)) throw conflict('rule_exists', `rule '${body.key}' already exists`);
  const at = now();
  return store.insert<RuleRow>('rules', body.key, {
    id: newId(),
    tenantId: TENANT_ID,
    key: body.key,
    status: (body.status as RuleRow['status'] | undefined) ?? 'enabled',
    version: 1,
    workspaceId: (body.workspaceId as string | undefined) ?? null,
    goalId: (body.goalId as string | undefined) ?? null,
    description: (body.description as string | undefined) ?? '',
    trigger: body.trigger,
    condition: body.condition ?? true,
    interpretation: body.interpretation ?? null,
    action: body.action,
    identity: body.identity ?? null,
    package: link,
    createdAt: at,
    updatedAt: at,
  });
}

export function changeRule(store: Store, rule: RuleRow, changes: Record<string, unknown>): RuleRow {
  if (rule.status === 'archived') throw conflict('rule_archived', `rule '${rule.key}' is archived`);
  return store.replace<RuleRow>('rules', { ...rule, ...changes, version: rule.version + 1, updatedAt: now() });
}

function ruleUnderIfMatch(ctx: RouteContext): RuleRow {
  const rule = findOr404(ctx.store.get<RuleRow>('rules', ctx.params.id!), `rule ${ctx.params.id}`);
  requireIfMatchWhenSent(ctx, rule);
  return rule;
}

/** enable / disable / archive are idempotent commands; If-Match is honoured when a client sends it. */
function requireIfMatchWhenSent(ctx: RouteContext, rule: RuleRow): void {
  if (ctx.headers['if-match'] !== undefined) requireIfMatch(ctx, etag('rule', rule.version));
}

function statusRoute(action: 'enable' | 'disable', status: RuleRow['status']): Route {
  return {
    method: 'POST',
    path: `/api/v1/rules/{id}:${action}`,
    api: 'core',
    summary: `${action === 'enable' ? 'Enable' : 'Disable'} a rule`,
    response: 'RuleOut',
    handle(ctx) {
      const rule = ruleUnderIfMatch(ctx);
      const next = rule.status === status ? rule : changeRule(ctx.store, rule, { status });
      return { body: next, headers: { ETag: etag('rule', next.version) } };
    },
  };
}

export const RULE_ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/rules',
    api: 'core',
    summary: 'List rules (archived ones too)',
    response: 'RulePage',
    query: [{ name: 'key', type: 'string' }, { name: 'status', type: 'string' }, ...LIST_QUERY],
    handle(ctx) {
      const key = ctx.query.get('key');
      const status = ctx.query.get('status');
      const rows = (key ? ctx.store.byKey<RuleRow>('rules', key) : ctx.store.all<RuleRow>('rules')).filter((r) => !status || r.status === status);
      return { body: page(rows, ctx.query) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/rules',
    api: 'core',
    summary: 'Create a rule',
    request: 'RuleCreateRequest',
    response: 'RuleOut',
    status: 201,
    handle(ctx) {
      const rule = createRule(ctx.store, bodyOf<Record<string, unknown> & { key: string }>(ctx), null);
      return { status: 201, body: rule, headers: { ETag: etag('rule', rule.version) } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/rules/{id}',
    api: 'core',
    summary: 'Read a rule',
    response: 'RuleOut',
    handle(ctx) {
      const rule = findOr404(ctx.store.get<RuleRow>('rules', ctx.params.id!), `rule ${ctx.params.id}`);
      return { body: rule, headers: { ETag: etag('rule', rule.version) } };
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/rules/{id}',
    api: 'core',
    summary: 'Change a rule (If-Match: "rule-<version>")',
    request: 'RulePatchRequest',
    response: 'RuleOut',
    handle(ctx) {
      const rule = findOr404(ctx.store.get<RuleRow>('rules', ctx.params.id!), `rule ${ctx.params.id}`);
      requireIfMatch(ctx, etag('rule', rule.version));
      const next = changeRule(ctx.store, rule, bodyOf<Record<string, unknown>>(ctx));
      return { body: next, headers: { ETag: etag('rule', next.version) } };
    },
  },
  statusRoute('enable', 'enabled'),
  statusRoute('disable', 'disabled'),
  {
    method: 'DELETE',
    path: '/api/v1/rules/{id}',
    api: 'core',
    summary: 'Archive a rule (a repeated delete answers the same)',
    response: 'RuleOut',
    handle(ctx) {
      const rule = ruleUnderIfMatch(ctx);
      if (rule.status === 'archived') return { body: rule };
      const next = ctx.store.replace<RuleRow>('rules', { ...rule, status: 'archived', version: rule.version + 1, updatedAt: now() });
      return { body: next };
    },
  },
];
