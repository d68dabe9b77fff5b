/**
 * The `retire` section (compat-package-sdk-install §4.5, §5.3): what the installation's `spec.retire` names
 * and the core still has live. Nothing is destroyed: agents and rules are retired or archived, task types
 * deprecated, processes and calendars retired — live instances run to completion. The plan asks the core
 * with a dry run (`:retire?dryRun=true`), which checks and answers without writing.
 */
import { CoreHttpError } from '../client/client.js';
import type { Change } from './document.js';
import { requireService } from './notifications.js';
import { Refusal } from '../fs/refusal.js';
import type { SectionContext, Step } from './section.js';

export const RETIRE_REASON = 'retired by package installation';

interface RetireAnswer {
  openInstances?: number;
  byVersion?: { version: number; openInstances: number }[];
}

export async function retireSteps(ctx: SectionContext): Promise<Step[]> {
  const retire = retireList(ctx);
  const steps: Step[] = [];
  for (const [kind, keys] of retire) {
    if (kind === 'Process' || kind === 'Calendar') continue;
    for (const key of keys) steps.push(...(await installerRetire(ctx, kind, key)));
  }
  const processes = retire.find(([kind]) => kind === 'Process')?.[1] ?? [];
  const retiredProcesses = new Set<string>();
  for (const key of processes) {
    const step = await catalogRetire(ctx, 'Process', key, retiredProcesses);
    if (step) {
      steps.push(step);
      if ((step.change.openInstances ?? 0) === 0) retiredProcesses.add(key);
    }
  }
  for (const key of retire.find(([kind]) => kind === 'Calendar')?.[1] ?? []) {
    const step = await catalogRetire(ctx, 'Calendar', key, retiredProcesses);
    if (step) steps.push(step);
  }
  return steps;
}

/** `spec.retire` of the installation in file order: kind → keys. */
function retireList(ctx: SectionContext): [string, string[]][] {
  const retire = (ctx.workspace.installation?.document.value as { spec?: { retire?: unknown } } | undefined)?.spec?.retire;
  if (retire === null || typeof retire !== 'object' || Array.isArray(retire)) return [];
  return Object.entries(retire as Record<string, unknown>).map(([kind, keys]) => [kind, Array.isArray(keys) ? keys.map(String) : []]);
}

const item = (kind: string, key: string, rest: Omit<Change, 'kind' | 'key'>): Change => ({ kind, key, ...rest });

async function installerRetire(ctx: SectionContext, kind: string, key: string): Promise<Step[]> {
  const client = ctx.client;
  switch (kind) {
    case 'NotificationRule': {
      const service = requireService(ctx);
      const rule = (await service.list<{ key: string; version: number; state?: string }>('/api/v1/notification-rules', [['key', key], ['includeRetired', true]]))
        .find((row) => row.key === key);
      if (!rule || rule.state === 'retired') return [];
      return [{ change: item(kind, key, { operation: 'retire', expected: { version: rule.version }, detail: `v${rule.version} → retired` }),
        write: async () => void (await service.send('POST', `/api/v1/notification-rules/${encodeURIComponent(key)}:retire`)) }];
    }
    case 'Agent': {
      const agent = await client.find<{ status?: string; currentRevision?: number }>(`/api/v1/agents/${encodeURIComponent(key)}`);
      if (!agent || agent.status === 'retired') return [];
      return [{ change: item(kind, key, { operation: 'retire', expected: { revision: agent.currentRevision ?? null }, detail: 'agent → retired' }),
        write: async () => void (await client.send('POST', `/api/v1/agents/${encodeURIComponent(key)}:retire`, { body: { reason: RETIRE_REASON } })) }];
    }
    case 'WorkRule': {
      const live = (await client.list<{ id: string; version: number; status: string }>('/api/v1/rules', [['key', key]])).filter((row) => row.status !== 'archived');
      return live.map((row) => ({ change: item(kind, key, { operation: 'retire', expected: { version: row.version }, detail: 'rule → archived' }),
        write: async () => void (await client.send('DELETE', `/api/v1/rules/${row.id}`)) }));
    }
    case 'TaskType':
    case 'ProjectTemplate': {
      const collection = kind === 'TaskType' ? 'task-types' : 'project-templates';
      const active = (await client.list<{ id: string; version: number }>(`/api/v1/${collection}`, [['key', key], ['status', 'active']]))
        .sort((a, b) => a.version - b.version);
      const expected = { active: active.map((row) => row.version) };
      return active.map((row) => ({ change: item(kind, key, { operation: 'deprecate', expected, version: row.version, detail: `v${row.version} → deprecated` }),
        write: async () => void (await client.send('POST', `/api/v1/${collection}/${row.id}:deprecate`)) }));
    }
    default:
      ctx.warn(`retire.${kind}: the installer does not retire ${kind} objects — skipped`);
      return [];
  }
}

async function catalogRetire(ctx: SectionContext, kind: 'Process' | 'Calendar', key: string, retiredProcesses: ReadonlySet<string>): Promise<Step | undefined> {
  const collection = kind === 'Process' ? 'process-definitions' : 'calendars';
  const path = `/api/v1/${collection}/${encodeURIComponent(key)}`;
  const current = await ctx.client.find<{ status?: string }>(path);
  if (!current || current.status === 'retired') return undefined;
  const write = async (): Promise<void> => {
    try {
      await ctx.client.send('POST', `${path}:retire`, { body: { reason: RETIRE_REASON } });
    } catch (error) {
      if (error instanceof CoreHttpError) throw new Refusal('core_rejected', `${kind}/${key}: retirement rejected — ${error.message}`);
      throw error;
    }
  };
  let answer: RetireAnswer;
  try {
    answer = await ctx.client.send<RetireAnswer>('POST', `${path}:retire`, { query: [['dryRun', true]], body: { reason: RETIRE_REASON }, idempotent: false });
  } catch (error) {
    if (kind === 'Calendar' && error instanceof CoreHttpError && error.code === 'calendar_in_use') {
      return { change: calendarInUse(key, error, retiredProcesses), write };
    }
    throw error;
  }
  if (kind === 'Calendar') return { change: item(kind, key, { operation: 'retire', expected: { status: 'active' }, detail: 'calendar → retired' }), write };
  const open = answer.openInstances ?? 0;
  return {
    change: item(kind, key, { operation: 'retire', expected: { status: 'active' }, openInstances: open, byVersion: answer.byVersion ?? [],
      detail: open > 0 ? `process → retired, live instances ${open} — will run to completion` : 'process → retired, no live instances' }),
    write,
  };
}

/** A calendar still named by processes may go only with them: all retired by this plan, none with open instances. */
function calendarInUse(key: string, error: CoreHttpError, retiredProcesses: ReadonlySet<string>): Change {
  const processes = Array.isArray(error.details.processes) ? (error.details.processes as { key: string; version: number; openInstances: number }[]) : [];
  const total = Number(error.details.total ?? processes.length);
  const ok = total === processes.length && processes.every((process) => retiredProcesses.has(process.key) && process.openInstances === 0);
  if (!ok) {
    const list = processes.map((process) => `${process.key} v${process.version} (live ${process.openInstances})`).join(', ');
    throw new Refusal('calendar_in_use', `Calendar/${key}: calendar_in_use — the calendar is used by processes: ${list} (total ${total})`, { hint: 'retire them or wait until their instances complete' });
  }
  return item('Calendar', key, { operation: 'retire', expected: { status: 'active' }, after: processes.map((process) => `Process/${process.key}`).sort(),
    detail: 'calendar → retired after its processes' });
}
