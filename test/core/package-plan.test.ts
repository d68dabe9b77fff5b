import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSeed } from '../../src/server/seed.js';
import { DESK, OURS, type TestCore, packageFiles, startTestCore } from './support.js';

/**
 * What `/packages:plan` and `/packages:apply` decide for each object (compat-core-packages §4, §5), on the desk
 * package of the core fixtures changed one way or another: the catalog form compared with what is in the
 * catalog whoever put it there, renames, restore and retire, versions, refusals, and the links apply writes.
 */
const WORKSPACE = '11111111-2222-4333-8444-555555555555';
const OTHER_WORKSPACE = '11111111-2222-4333-8444-777777777777';
type File = { path: string; content: string };

let core: TestCore;

beforeEach(async () => {
  core = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE, OTHER_WORKSPACE] }) });
});
afterEach(() => core.dispose());

/** The desk package with some files changed (`null` drops one) and others added. */
function desk(changes: Record<string, string | null | ((content: string) => string)> = {}): File[] {
  const files = packageFiles(DESK).flatMap((file) => {
    const change = changes[file.path];
    if (change === undefined) return [file];
    if (change === null) return [];
    return [{ path: file.path, content: typeof change === 'string' ? change : change(file.content) }];
  });
  const added = Object.entries(changes).filter(([path, change]) => typeof change === 'string' && !files.some((file) => file.path === path));
  return [...files, ...added.map(([path, content]) => ({ path, content: content as string }))];
}

async function plan(files: File[], extra: Record<string, unknown> = {}) {
  const answer = await core.call('POST', '/api/v1/packages:plan', { body: { package: { files }, ...extra } });
  OURS.install.answer('/api/v1/packages:plan', 'POST', answer);
  return answer;
}

async function apply(files: File[], planHash: string, extra: Record<string, unknown> = {}, key = randomUUID()) {
  const answer = await core.call('POST', '/api/v1/packages:apply', { body: { package: { files }, planHash, ...extra }, headers: { 'Idempotency-Key': key } });
  OURS.install.answer('/api/v1/packages:apply', 'POST', answer);
  return answer;
}

async function install(files: File[], extra: Record<string, unknown> = {}) {
  const planned = await plan(files, extra);
  expect(planned.body.problems.filter((p: any) => p.severity === 'error')).toEqual([]);
  const applied = await apply(files, planned.body.planHash, extra);
  expect(applied.status).toBe(200);
  return applied.body;
}

const actions = (answer: { body: { changes: { kind: string; key: string; action: string }[] } }) => answer.body.changes.map((c) => `${c.kind}/${c.key}:${c.action}`);
const codes = (answer: { body: { problems: { code: string; severity: string; path: string }[] } }) => answer.body.problems.map((p) => `${p.severity} ${p.code} ${p.path}`);
/** The lifecycle of the desk's task type, as its file declares it. */
const LIFECYCLE = {
  statuses: [{ key: 'todo', category: 'active', displayName: 'To do' }, { key: 'done', category: 'terminal_success', displayName: 'Done' }],
  transitions: [{ from: 'todo', to: ['done'] }],
  initialStatus: 'todo',
  completionStatus: 'done',
};
const bump = (content: string) => content.replace('version: 1', 'version: 2');

describe('a plan compares with the catalog, whoever wrote it', () => {
  it('objects the installer routes created are unchanged when equal, and a task type keeps one active version', async () => {
    await core.call('POST', '/api/v1/task-types', { body: { key: 'desk-review', displayName: 'Review a request', description: 'Decide what happens to a service request', lifecycleSchema: LIFECYCLE, fieldSchema: { type: 'object', properties: { decision: { type: 'string', enum: ['accept', 'reject'] } } } } });
    await core.call('POST', '/api/v1/task-types', { body: { key: 'desk-review', displayName: 'Review a request', description: 'Decide what happens to a service request', lifecycleSchema: LIFECYCLE, fieldSchema: { type: 'object', properties: { decision: { type: 'string', enum: ['accept', 'reject'] } } } } });
    await core.call('POST', '/api/v1/rules', { body: { key: 'desk-reopened', description: 'A reopened request is reviewed again', trigger: { kind: 'observation', type: 'desk.reopened' }, action: { kind: 'ensure_work', taskType: 'desk-review', dedupKeyTemplate: 'desk-reopened:{{payload.id}}', fields: { title: 'Review the reopened request {{payload.id}}' } } } });
    const planned = await plan(desk());
    expect(planned.body.changes.find((c: any) => c.key === 'desk-review')).toEqual({ kind: 'TaskType', key: 'desk-review', action: 'unchanged', renamedFrom: null, fields: [], deprecates: [1] });
    expect(planned.body.changes.find((c: any) => c.key === 'desk-reopened')).toMatchObject({ action: 'unchanged', fields: [] });
    const applied = await apply(desk(), planned.body.planHash);
    expect(applied.body.applied[0]).toEqual({ kind: 'TaskType', key: 'desk-review', action: 'unchanged', version: 2 });
    const versions = (await core.call('GET', '/api/v1/task-types?key=desk-review')).body.items.map((t: any) => [t.version, t.status, t.package?.key ?? null]);
    expect(versions).toEqual([[1, 'deprecated', 'desk'], [2, 'active', 'desk']]);
  });

  it('writes nothing: the plan is a trial, rolled back', async () => {
    const planned = await plan(desk());
    expect(actions(planned).every((action) => action.endsWith(':create'))).toBe(true);
    expect((await core.call('GET', '/api/v1/task-types?key=desk-review')).body.items).toEqual([]);
    expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).status).toBe(404);
    expect((await plan(desk())).body.planHash).toBe(planned.body.planHash);
  });

  it('lists what the installer applies, sorted by kind and key, without the manifest, an installation or a component', async () => {
    const planned = await plan(desk({
      'components/card.yaml': 'apiVersion: taimen.ai/v1\nkind: Component\nkey: card\nspec: {layout: []}\n',
      'roles/a-lead.yaml': 'apiVersion: taimen.ai/v1\nkind: Role\nkey: a-lead\nspec: {name: Lead}\n',
      'installation.yaml': 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: here\nspec: {packages: []}\n',
    }));
    expect(planned.body.outside).toEqual([
      { kind: 'NotificationRule', key: 'desk-assigned', appliedBy: 'notification-service' },
      { kind: 'Role', key: 'a-lead', appliedBy: 'installer' },
      { kind: 'Role', key: 'desk-agent', appliedBy: 'installer' },
    ]);
  });

  it('answers its problems sorted: errors first, then by file (by code points), line, path and code', async () => {
    const planned = await plan(desk({
      'rules/desk-reopened.yaml': (c) => `${c}  workspaceId: \${DESK_WORKSPACE}\n`,
      'processes/zz-copy.yaml': 'apiVersion: taimen.ai/v1\nkind: Process\nkey: desk-request\nspec: {version: 1}\n',
      'a-broken.yaml': 'key: [',
      // U+FF02 sorts before U+1F600 by code points, after it by UTF-16 units.
      'z\u{1F600}.yaml': 'key: [',
      'z\uFF02.yaml': 'key: [',
      'package.yaml': (c) => `${c}  renames: [{kind: TaskType, from: old-review, to: desk-review}]\n`,
    }));
    expect(codes(planned)).toEqual([
      'error invalid_yaml ',
      'error duplicate_object /key',
      'error unresolved_install_variable /spec/workspaceId',
      'error invalid_yaml ',
      'error invalid_yaml ',
      'warning rename_not_planned /spec/renames/0',
    ]);
    expect(planned.body.problems.slice(3, 5).map((problem: { file: string }) => problem.file)).toEqual(['z\uFF02.yaml', 'z\u{1F600}.yaml']);
    expect(planned.body.problems[1]).toMatchObject({ file: 'processes/zz-copy.yaml', message: 'Process/desk-request is also defined in processes/desk-request.yaml' });
    expect(actions(planned)).not.toContain('WorkRule/desk-reopened:create');
  });
});

describe('the workspace a ${…} workspaceId stands for', () => {
  const ruleIn = (content: string) => `${content}  workspaceId: \${DESK_WORKSPACE}\n`;

  it('is the request\'s, which must be a workspace of the core', async () => {
    const files = desk({ 'rules/desk-reopened.yaml': ruleIn });
    const unknown = await plan(files, { workspaceId: '99999999-2222-4333-8444-555555555555' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', message: 'Workspace not found', details: { workspaceId: '99999999-2222-4333-8444-555555555555' } });
    const planned = await plan(files, { workspaceId: WORKSPACE });
    expect(planned.body.changes.find((c: any) => c.key === 'desk-reopened').fields).toContainEqual({ path: '/spec/workspaceId', before: null, after: WORKSPACE, owner: 'package', applies: true });
    await apply(files, planned.body.planHash, { workspaceId: WORKSPACE });
    expect((await core.call('GET', '/api/v1/rules?key=desk-reopened')).body.items[0].workspaceId).toBe(WORKSPACE);

    const moved = await plan(files, { workspaceId: OTHER_WORKSPACE });
    expect(moved.body.problems).toEqual([expect.objectContaining({ code: 'rule_workspace_immutable', path: '/spec/workspaceId', file: 'rules/desk-reopened.yaml' })]);
  });
});

describe('processes take their version from the package', () => {
  it('a changed process needs a higher spec.version; a changed retired process is an update, an unchanged one a restore', async () => {
    await install(desk());
    const renamed = desk({ 'processes/desk-request.yaml': (c) => c.replace('Service request', 'Service ticket') });
    const conflict = await plan(renamed);
    expect(codes(conflict)).toEqual(['error process_version_conflict /spec/version']);
    expect((await apply(renamed, conflict.body.planHash)).body.error.code).toBe('invalid_package');

    await core.call('POST', '/api/v1/process-definitions/desk-request:retire', { body: { reason: 'paused' } });
    const changed = desk({ 'processes/desk-request.yaml': (c) => bump(c.replace('Service request', 'Service ticket')) });
    const update = await plan(changed);
    expect(update.body.changes.find((c: any) => c.key === 'desk-request')).toMatchObject({ action: 'update', fields: [{ path: '/spec/version', owner: 'package' }, { path: '/spec/displayName', before: 'Service request', after: 'Service ticket' }] });
    expect(update.body.processes).toEqual([{ key: 'desk-request', fromVersion: 1, toVersion: 2, behaviour: null, instances: [], deadlines: [], deadlinesTotal: 0 }]);
    const applied = await apply(changed, update.body.planHash);
    expect(applied.body.applied.find((a: any) => a.key === 'desk-request')).toEqual({ kind: 'Process', key: 'desk-request', action: 'update', version: 2 });
    expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ version: 2, status: 'active' });
  });

  it('an element keeps its kind from the latest version, and one that is gone is mapped by a migration', async () => {
    await install(desk());
    const asSet = desk({ 'processes/desk-request.yaml': (c) => bump(c.replace('human: {taskType: desk-review, assign: [{role: desk-agent}]}', 'set: {id: "\'x\'"}')) });
    expect(codes(await plan(asSet))).toEqual(['error element_kind_changed /spec/stages/0/steps/0/id']);
    const gone = desk({ 'processes/desk-request.yaml': (c) => bump(c.replace('id: review-request', 'id: review-ticket')) });
    const removed = await plan(gone);
    expect(removed.body.problems).toEqual([{
      code: 'element_removed', severity: 'warning', path: '/spec', file: 'processes/desk-request.yaml', line: 5,
      message: "element 'review-request' of version 1 is gone, and no migration from version 1 maps it",
      hint: 'add spec.migrations: [{from: 1, to: 2, map: {review-request: <an element of this version>}}]',
    }]);
    const migrated = desk({ 'processes/desk-request.yaml': (c) => `${bump(c.replace('id: review-request', 'id: review-ticket'))}  migrations: [{from: 1, to: 2, map: {review-request: review-ticket}}]\n` });
    expect(codes(await plan(migrated))).toEqual([]);
  });

  it('a process may not name a calendar the catalog retired, unless the package brings it back', async () => {
    await install(desk());
    await core.call('POST', '/api/v1/process-definitions/desk-request:retire', { body: { reason: 'paused' } });
    expect((await core.call('POST', '/api/v1/calendars/desk-office:retire', { body: { reason: 'closed' } })).status).toBe(200);
    const withoutCalendar = desk({ 'calendars/office.yaml': null, 'processes/desk-request.yaml': bump });
    expect(codes(await plan(withoutCalendar))).toEqual(['error calendar_retired /spec/calendar']);
    const restoring = await plan(desk());
    expect(actions(restoring)).toEqual(expect.arrayContaining(['Calendar/desk-office:restore', 'Process/desk-request:restore']));
    expect(restoring.body.problems).toEqual([]);
  });
});

describe('renames, retirements and refusals', () => {
  const renamedProcess = (content: string) => content.replace('key: desk-request', 'key: desk-ticket');
  const renaming = (renames: string) => (content: string) => `${content}  renames: ${renames}\n`;

  it('a process renamed in the manifest carries the versions of its old key, which apply retires', async () => {
    await install(desk());
    const files = desk({
      'processes/desk-request.yaml': (c) => bump(renamedProcess(c)),
      'package.yaml': renaming('[{kind: Process, from: desk-request, to: desk-ticket}]'),
    });
    const planned = await plan(files);
    expect(planned.body.changes.find((c: any) => c.kind === 'Process')).toEqual({
      kind: 'Process', key: 'desk-ticket', action: 'rename', renamedFrom: 'desk-request', deprecates: [],
      fields: [{ path: '/spec/version', before: 1, after: 2, owner: 'package', applies: true }],
    });
    expect(planned.body.processes).toEqual([{ key: 'desk-ticket', fromVersion: 1, toVersion: 2, behaviour: null, instances: [], deadlines: [], deadlinesTotal: 0 }]);
    const applied = await apply(files, planned.body.planHash);
    expect(applied.body.applied.find((a: any) => a.kind === 'Process')).toEqual({ kind: 'Process', key: 'desk-ticket', action: 'rename', version: 2 });
    expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ status: 'retired', retired: { reason: 'renamed by package desk' } });
    expect((await core.call('GET', '/api/v1/process-definitions/desk-ticket')).body).toMatchObject({ version: 2, status: 'active', package: { key: 'desk' } });
    expect(actions(await plan(files))).toContain('Process/desk-ticket:unchanged');
  });

  it('refuses renames the core cannot follow', async () => {
    const problems = await plan(desk({
      'package.yaml': renaming('[{kind: Process, from: desk-request, to: desk-request}, {kind: Process, from: desk-request, to: desk-ticket}, {kind: Calendar, from: old-office, to: desk-office}, {kind: Calendar, from: old-office, to: desk-office}, {kind: Agent, from: old-agent, to: desk-process}]'),
    }));
    expect(codes(problems)).toEqual([
      'error invalid_rename /spec/renames/0',
      'error invalid_rename /spec/renames/1/to',
      'error invalid_rename /spec/renames/3/from',
      'warning rename_not_planned /spec/renames/4',
    ]);
  });

  it('retires a view the package brought before and no longer brings', async () => {
    await install(desk());
    const files = desk({ 'views/desk-queue.yaml': null });
    const planned = await plan(files);
    expect(planned.body.changes.at(-1)).toEqual({ kind: 'View', key: 'desk-queue', action: 'retire', renamedFrom: null, fields: [], deprecates: [] });
    const applied = await apply(files, planned.body.planHash);
    expect(applied.body.applied.at(-1)).toEqual({ kind: 'View', key: 'desk-queue', action: 'retire', version: 1 });
    expect((await core.call('GET', '/api/v1/views/desk-queue')).body.status).toBe('retired');
    expect(actions(await plan(files))).not.toContain('View/desk-queue:retire');
  });

  it('a retired agent is not brought back by a package', async () => {
    await install(desk());
    await core.call('POST', '/api/v1/agents/desk-process:retire', { body: { reason: 'gone' } });
    const planned = await plan(desk());
    expect(codes(planned)).toEqual(['error agent_retired /key']);
    expect(actions(planned)).not.toContain('Agent/desk-process:unchanged');
  });

  it('warns when another package installed an object before', async () => {
    await install(desk());
    const other = desk({ 'package.yaml': (c) => c.replace('key: desk', 'key: service-desk') });
    const planned = await plan(other);
    expect(planned.body.problems.every((p: any) => p.code === 'package_owner_changed' && p.severity === 'warning')).toBe(true);
    expect(planned.body.problems).toHaveLength(6);
  });
});

describe('apply', () => {
  it('links every planned object, unchanged ones too, to the package version it installs', async () => {
    const first = await install(desk());
    const next = desk({ 'package.yaml': (c) => c.replace('version: 0.1.0', 'version: 0.2.0') });
    const planned = await plan(next);
    expect(actions(planned).every((action) => action.endsWith(':unchanged'))).toBe(true);
    const applied = await apply(next, planned.body.planHash);
    expect(applied.body.applied.map((a: any) => a.version)).toEqual(first.applied.map((a: any) => a.version));
    const card = (await core.call('GET', '/api/v1/process-definitions/desk-request')).body;
    expect(card.package).toMatchObject({ key: 'desk', version: '0.2.0', installHash: planned.body.planHash });
    expect((await core.call('GET', '/api/v1/task-types?key=desk-review')).body.items[0].package.version).toBe('0.2.0');
  });

  it('replays its answer to the same key, and a refused apply may be retried with the key', async () => {
    const files = desk();
    const planned = await plan(files);
    const key = randomUUID();
    const stale = await apply(files, `sha256:${'2'.repeat(64)}`, {}, key);
    expect(stale.status).toBe(409);
    const applied = await apply(files, planned.body.planHash, {}, key);
    expect(applied.status).toBe(200);
    const replayed = await apply(files, planned.body.planHash, {}, key);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.body).toEqual(applied.body);
    expect((await apply(files, planned.body.planHash)).status).toBe(409);
  });
});
