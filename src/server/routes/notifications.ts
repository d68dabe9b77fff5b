import { unprocessable } from '../errors.js';
import { ADMIN_PRINCIPAL_ID, newId, now } from '../identity.js';
import { coreDigest } from '../../json/digest.js';
import { LIST_QUERY, type Route, booleanQuery, bodyOf, findOr404, page } from '../route.js';
import type { Row, Store } from '../store.js';
import { isRecord } from '../../json/guards.js';

/**
 * Notification rules, served on the same server under the notification service's routes
 * (compat-package-sdk-install §6.4): versions by key, `changed` by spec hash, retire.
 */
interface NotificationRuleRow extends Row {
  key: string;
  version: number;
  spec: Record<string, unknown>;
  specHash: string;
  state: 'active' | 'retired';
  createdBy: string;
  createdAt: string;
}

interface RuleProblem {
  path: string;
  code: string;
  message: string;
}

const RECIPIENT_KINDS = ['assigned', 'role', 'taskOwner', 'taskAssignee', 'principal'];

/** What the service itself refuses: the parts it needs to route and render a notification. */
function problemsOf(spec: Record<string, unknown>): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const object = (name: string): Record<string, unknown> | undefined => {
    const value = spec[name];
    if (isRecord(value)) return value;
    problems.push({ path: `/${name}`, code: 'required', message: `${name} is required (an object)` });
    return undefined;
  };
  const text = (parent: Record<string, unknown> | undefined, name: string, path: string): void => {
    if (parent && (typeof parent[name] !== 'string' || parent[name] === '')) problems.push({ path, code: 'required', message: `${path.slice(1).replace('/', '.')} is required (a string)` });
  };
  const on = object('on');
  text(on, 'type', '/on/type');
  const recipient = object('recipient');
  if (recipient && !RECIPIENT_KINDS.includes(recipient.kind as string)) {
    problems.push({ path: '/recipient/kind', code: 'invalid_value', message: `recipient.kind must be one of ${RECIPIENT_KINDS.join(', ')}` });
  }
  const notification = object('notification');
  text(notification, 'type', '/notification/type');
  text(notification, 'title', '/notification/title');
  if (spec.status !== undefined && spec.status !== 'enabled' && spec.status !== 'disabled') {
    problems.push({ path: '/status', code: 'invalid_value', message: 'status must be enabled or disabled' });
  }
  return problems;
}

function latest(store: Store, key: string): NotificationRuleRow | undefined {
  return store.byKey<NotificationRuleRow>('notification-rules', key).at(-1);
}

function check(store: Store, key: string, spec: Record<string, unknown>): { specHash: string; changed: boolean } {
  const problems = problemsOf(spec);
  if (problems.length > 0) throw unprocessable('invalid_notification_rule', `notification rule ${key}: ${problems[0]!.message}`, { errors: problems });
  const specHash = coreDigest(spec);
  const current = latest(store, key);
  return { specHash, changed: !current || current.state === 'retired' || current.specHash !== specHash };
}

export const NOTIFICATION_ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/notification-rules',
    api: 'notifications',
    summary: 'List notification rules (the latest version of each key)',
    response: 'NotificationRulePage',
    query: [{ name: 'key', type: 'string' }, { name: 'includeRetired', type: 'boolean' }, ...LIST_QUERY],
    handle(ctx) {
      const key = ctx.query.get('key');
      const includeRetired = booleanQuery(ctx.query, 'includeRetired');
      const latestByKey = new Map<string, NotificationRuleRow>();
      for (const row of key ? ctx.store.byKey<NotificationRuleRow>('notification-rules', key) : ctx.store.all<NotificationRuleRow>('notification-rules')) latestByKey.set(row.key, row);
      const items = [...latestByKey.values()].filter((r) => includeRetired || r.state !== 'retired');
      return { body: page(items, ctx.query) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/notification-rules:validate',
    api: 'notifications',
    summary: 'Check a rule and tell whether it differs from the stored one (writes nothing)',
    request: 'NotificationRuleRequest',
    response: 'NotificationRuleValidateOut',
    handle(ctx) {
      const body = bodyOf<{ key: string; spec: Record<string, unknown> }>(ctx);
      return { body: { valid: true, ...check(ctx.store, body.key, body.spec) } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/notification-rules',
    api: 'notifications',
    summary: 'Store a rule: 201 with a new version, 200 when unchanged',
    request: 'NotificationRuleRequest',
    response: 'NotificationRuleOut',
    status: 201,
    alsoStatus: 200,
    handle(ctx) {
      const body = bodyOf<{ key: string; spec: Record<string, unknown> }>(ctx);
      const { specHash, changed } = check(ctx.store, body.key, body.spec);
      const current = latest(ctx.store, body.key);
      if (!changed && current) return { status: 200, body: current };
      const row = ctx.store.insert<NotificationRuleRow>('notification-rules', body.key, {
        id: newId(),
        key: body.key,
        version: (current?.version ?? 0) + 1,
        spec: body.spec,
        specHash,
        state: 'active',
        createdBy: ADMIN_PRINCIPAL_ID,
        createdAt: now(),
      });
      return { status: 201, body: row };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/notification-rules/{key}:retire',
    api: 'notifications',
    summary: 'Retire a rule (a repeated retire answers the same)',
    response: 'NotificationRuleOut',
    handle(ctx) {
      const current = findOr404(latest(ctx.store, ctx.params.key!), `notification rule ${ctx.params.key}`);
      if (current.state === 'retired') return { body: current };
      return { body: ctx.store.replace<NotificationRuleRow>('notification-rules', { ...current, state: 'retired' }) };
    },
  },
];
