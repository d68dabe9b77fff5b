/**
 * The `notification-rules` section (compat-package-sdk-install §4.5, §5.3): the notification service
 * validates every rule first (one bad rule stops the plan), then says which rules would get a new version.
 */
import { CoreHttpError, type CoreClient } from '../client/client.js';
import type { PackageObject } from '../model/package.js';
import { Refusal } from '../fs/refusal.js';
import { specOf, type SectionContext, type Step } from './section.js';

export function hasNotificationRules(ctx: Pick<SectionContext, 'workspace'>): boolean {
  const retire = (ctx.workspace.installation?.document.value as { spec?: { retire?: Record<string, unknown> } } | undefined)?.spec?.retire;
  return ctx.workspace.objects('NotificationRule').length > 0 || Array.isArray(retire?.NotificationRule);
}

export async function notificationSteps(ctx: SectionContext): Promise<Step[]> {
  const rules = ctx.workspace.objects('NotificationRule');
  if (rules.length === 0) return [];
  const service = requireService(ctx);
  const verdicts = await Promise.all(rules.map((rule) => validate(service, rule, specOf(ctx, rule))));
  const steps: Step[] = [];
  for (const [index, rule] of rules.entries()) {
    if (!verdicts[index]!.changed) continue;
    const current = (await service.list<{ key: string; version: number }>('/api/v1/notification-rules', [['key', rule.key]])).find((item) => item.key === rule.key);
    const spec = specOf(ctx, rule);
    steps.push({
      change: { kind: 'NotificationRule', key: rule.key, operation: current ? 'version' : 'create', package: rule.package,
        expected: { version: current?.version ?? null }, detail: current ? `new version after v${current.version}` : 'new version (not in the service)' },
      write: async () => {
        await validate(service, rule, spec);
        await service.send('POST', '/api/v1/notification-rules', { body: { key: rule.key, spec } });
      },
    });
  }
  return steps;
}

export function requireService(ctx: SectionContext): CoreClient {
  if (!ctx.notifications) {
    throw new Refusal('notification_service_required', 'the installation has notification rules — a notification service is needed ' +
      '(NOTIFICATION_SERVICE_URL and a token with audience notification-service)', { hint: 'set NOTIFICATION_SERVICE_URL and NOTIFY_TOKEN' });
  }
  return ctx.notifications;
}

async function validate(service: CoreClient, rule: PackageObject, spec: Record<string, unknown>): Promise<{ changed: boolean }> {
  try {
    return await service.send<{ changed: boolean }>('POST', '/api/v1/notification-rules:validate', { body: { key: rule.key, spec } });
  } catch (error) {
    if (!(error instanceof CoreHttpError)) throw error;
    const errors = Array.isArray(error.details.errors) ? (error.details.errors as { path?: string; message?: string }[]) : [];
    const detail = errors.length > 0 ? errors.map((e) => `${e.path ?? ''} ${e.message ?? ''}`.trim()).join('; ') : error.reason;
    throw new Refusal('core_rejected', `NotificationRule/${rule.key} (${rule.file}): the notification service rejects the rule — ${detail}`);
  }
}
