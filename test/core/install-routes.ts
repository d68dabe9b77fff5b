import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSeed } from '../../src/server/seed.js';
import { type Contracts, DESK, type TestCore, packageFiles, startTestCore } from './support.js';

/**
 * The 13 paths of the core's install slice, driven over HTTP with valid and invalid requests; every request
 * we send and every answer we get is checked against `contracts.install` — our own document in `npm test`,
 * the real core's slice in the conformance suite.
 */
const WORKSPACE = '11111111-2222-4333-8444-555555555555';
const CHILD_WORKSPACE = '11111111-2222-4333-8444-666666666666';
const PROJECT = '22222222-2222-4333-8444-555555555555';
const PRINCIPAL = '33333333-2222-4333-8444-555555555555';
const ROLE = '44444444-2222-4333-8444-555555555555';
const UNKNOWN = '99999999-2222-4333-8444-555555555555';

export function describeInstallRoutes(contracts: Contracts): void {
  let core: TestCore;

  beforeAll(async () => {
    core = await startTestCore({
      seed: parseSeed({
        workspaces: [WORKSPACE, { id: CHILD_WORKSPACE, parentId: WORKSPACE }],
        projects: [PROJECT],
        principals: [PRINCIPAL],
        roles: [{ id: ROLE, slug: 'claims-manager', name: 'Claims manager' }],
      }),
    });
  });
  afterAll(() => core.dispose());

  /** Sends a request whose body must be valid (or invalid) against the document's request schema, and checks the answer. */
  async function drive(method: string, template: string, path: string, body: unknown, options: { requestValid?: boolean; headers?: Record<string, string> } = {}) {
    const requestSchema = contracts.install.requestSchema(template, method);
    if (requestSchema && body !== undefined) {
      const errors = contracts.install.errors(requestSchema, body);
      if (options.requestValid === false) expect(errors, 'an invalid request must be invalid for the document too').not.toEqual([]);
      else expect(errors).toEqual([]);
    }
    const answer = await core.call(method, path, { body, headers: options.headers ?? {} });
    contracts.install.answer(template, method, answer);
    return answer;
  }

  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  describe('POST /packages:plan and /packages:apply', () => {
    const PLAN = '/api/v1/packages:plan';
    const APPLY = '/api/v1/packages:apply';

    it('plans every core-planned object of a new package as create, and applies exactly that plan', async () => {
      const files = packageFiles(DESK);
      const plan = await drive('POST', PLAN, PLAN, { package: { files }, replayLimit: 50 });
      expect(plan.status).toBe(200);
      expect(plan.body.package).toEqual({ key: 'desk', version: '0.1.0' });
      expect(plan.body.changes.map((c: any) => `${c.kind}/${c.key}:${c.action}`)).toEqual([
        'TaskType/desk-review:create', 'Agent/desk-process:create', 'Calendar/desk-office:create', 'Process/desk-request:create', 'WorkRule/desk-reopened:create',
        'View/desk-queue:create',
      ]);
      // A new task type is all twelve members of its catalog form, defaults included.
      expect(plan.body.changes[0].fields.map((f: any) => f.path)).toEqual([
        '/spec/displayName', '/spec/description', '/spec/fieldSchema', '/spec/lifecycleSchema', '/spec/execution', '/spec/approvalSchema', '/spec/contextSchema',
        '/spec/instructions', '/spec/completionSchema', '/spec/artifactSchema', '/spec/acceptance', '/spec/executorRoles',
      ]);
      expect(plan.body.changes[0].fields[1]).toEqual({ path: '/spec/description', before: null, after: 'Decide what happens to a service request', owner: 'package', applies: true });
      expect(plan.body.changes.every((c: any) => c.renamedFrom === null && Array.isArray(c.deprecates))).toBe(true);
      expect(plan.body.outside).toEqual([
        { kind: 'NotificationRule', key: 'desk-assigned', appliedBy: 'notification-service' },
        { kind: 'Role', key: 'desk-agent', appliedBy: 'installer' },
      ]);
      expect(plan.body.processes).toEqual([{ key: 'desk-request', fromVersion: null, toVersion: 1, behaviour: null, instances: [], deadlines: [], deadlinesTotal: 0 }]);
      expect(plan.body.problems).toEqual([]);

      const applied = await drive('POST', APPLY, APPLY, { package: { files }, planHash: plan.body.planHash }, { headers: idem() });
      expect(applied.status).toBe(200);
      expect(applied.body.planHash).toBe(plan.body.planHash);
      expect(applied.body.catalogEtag).not.toBe(plan.body.catalogEtag);
      expect(applied.body.applied).toEqual([
        { kind: 'TaskType', key: 'desk-review', action: 'create', version: 1 },
        { kind: 'Agent', key: 'desk-process', action: 'create', version: 1 },
        { kind: 'Calendar', key: 'desk-office', action: 'create', version: 1 },
        { kind: 'Process', key: 'desk-request', action: 'create', version: 1 },
        { kind: 'WorkRule', key: 'desk-reopened', action: 'create', version: 1 },
        { kind: 'View', key: 'desk-queue', action: 'create', version: 1 },
      ]);
      const view = await core.call('GET', '/api/v1/views/desk-queue');
      expect(view.body).toMatchObject({ key: 'desk-queue', version: 1, latestVersion: 1, status: 'active', spec: { title: 'desk.queue.title' } });

      const again = await drive('POST', PLAN, PLAN, { package: { files } });
      expect(again.body.changes.map((c: any) => [c.action, c.fields])).toEqual(plan.body.changes.map(() => ['unchanged', []]));
      expect(again.body.planHash).not.toBe(plan.body.planHash);
      const stale = await drive('POST', APPLY, APPLY, { package: { files }, planHash: plan.body.planHash }, { headers: idem() });
      expect(stale.status).toBe(409);
      expect(stale.body.error).toMatchObject({ code: 'plan_stale', details: { planHash: plan.body.planHash, currentPlanHash: again.body.planHash, catalogEtag: again.body.catalogEtag } });
    });

    it('refuses an apply whose plan went stale, and a request that breaks the request model', async () => {
      const files = packageFiles(DESK).map((f) => (f.path === 'task-types/desk-review.yaml' ? { ...f, content: f.content.replace('Review a request', 'Review a ticket') } : f));
      const plan = await drive('POST', PLAN, PLAN, { package: { files } });
      expect(plan.body.changes[0]).toMatchObject({ kind: 'TaskType', action: 'update', deprecates: [1] });
      expect(plan.body.changes[0].fields).toEqual([{ path: '/spec/displayName', before: 'Review a request', after: 'Review a ticket', owner: 'package', applies: true }]);
      const stale = await drive('POST', APPLY, APPLY, { package: { files }, planHash: `sha256:${'0'.repeat(64)}` }, { headers: idem() });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('plan_stale');

      const noFiles = await drive('POST', PLAN, PLAN, { package: { files: [] } }, { requestValid: false });
      expect(noFiles.status).toBe(400);
      expect(noFiles.body.error).toMatchObject({ code: 'invalid_request', details: { errors: [{ loc: 'body.package.files', message: expect.any(String) }] } });
      const extra = await drive('POST', PLAN, PLAN, { package: { files }, replayLimit: 500 }, { requestValid: false });
      expect(extra.status).toBe(400);
      expect(extra.body.error.details.errors).toEqual([{ loc: 'body.replayLimit', message: 'Input should be less than or equal to 200' }]);
      const badHash = await drive('POST', APPLY, APPLY, { package: { files }, planHash: 'sha256:xyz' }, { requestValid: false });
      expect(badHash.status).toBe(400);
      const replay = await drive('POST', APPLY, APPLY, { package: { files }, planHash: plan.body.planHash, replayLimit: 50 }, { requestValid: false });
      expect(replay.body.error.details.errors).toEqual([{ loc: 'body.replayLimit', message: 'Extra inputs are not permitted' }]);
      const query = await drive('POST', PLAN, `${PLAN}?checkOnly=true`, { package: { files } });
      expect(query.status).toBe(400);
      expect(query.body.error.details.errors).toEqual([{ loc: 'query.checkOnly', message: 'Unknown query parameter' }]);
      const paths = await drive('POST', PLAN, PLAN, { package: { files: [...files, { path: 'x/../y.yaml', content: '' }, { path: 'a\\b.yaml', content: '' }, files[0]] } });
      expect(paths.status).toBe(400);
      expect(paths.body.error.details.errors.map((e: any) => e.loc)).toEqual([`body.package.files.${files.length}.path`, `body.package.files.${files.length + 1}.path`, 'body.package.files']);
    });

    it('reports YAML that does not parse as a problem with file and line, and refuses to apply it', async () => {
      const files = [...packageFiles(DESK), { path: 'broken.yaml', content: 'apiVersion: taimen.ai/v1\nkind: TaskType\nkey: [unclosed\n' }];
      const plan = await drive('POST', PLAN, PLAN, { package: { files } });
      expect(plan.body.problems).toEqual([expect.objectContaining({ code: 'invalid_yaml', severity: 'error', file: 'broken.yaml', line: expect.any(Number) })]);
      const applied = await drive('POST', APPLY, APPLY, { package: { files }, planHash: plan.body.planHash }, { headers: idem() });
      expect(applied.status).toBe(422);
      expect(applied.body.error.code).toBe('invalid_package');
      expect(applied.body.error.message).toMatch(/^The package is invalid: .+ at $/);
      expect(applied.body.error.details.problems[0].file).toBe('broken.yaml');
      // Hash first: an invalid package whose plan is also stale is 409.
      const both = await drive('POST', APPLY, APPLY, { package: { files }, planHash: `sha256:${'1'.repeat(64)}` }, { headers: idem() });
      expect(both.status).toBe(409);
    });
  });

  describe('process definitions and calendars', () => {
    it('reads a process by key and key@version, and 404 for an unknown one', async () => {
      const latest = await drive('GET', '/api/v1/process-definitions/{ref}', '/api/v1/process-definitions/desk-request', undefined);
      expect(latest.status).toBe(200);
      expect(latest.body).toMatchObject({ key: 'desk-request', version: 1, latestVersion: 1, status: 'active', retired: null, identityAgent: 'desk-process' });
      expect(latest.body.package).toMatchObject({ key: 'desk', version: '0.1.0' });
      const pinned = await drive('GET', '/api/v1/process-definitions/{ref}', '/api/v1/process-definitions/desk-request@1', undefined);
      expect(pinned.body.id).toBe(latest.body.id);
      const missing = await drive('GET', '/api/v1/process-definitions/{ref}', '/api/v1/process-definitions/nope', undefined);
      expect(missing.status).toBe(404);
      const calendar = await drive('GET', '/api/v1/calendars/{ref}', '/api/v1/calendars/desk-office', undefined);
      expect(calendar.body).toMatchObject({ key: 'desk-office', version: 1, status: 'active' });
      expect((await drive('GET', '/api/v1/calendars/{ref}', '/api/v1/calendars/desk-office@7', undefined)).status).toBe(404);
    });

    it('retires: a dry run writes nothing, a calendar in use is refused, and a retire repeats its answer', async () => {
      const reason = { reason: 'retired by package installation' };
      const calendarRetire = '/api/v1/calendars/{key}:retire';
      const inUse = await drive('POST', calendarRetire, '/api/v1/calendars/desk-office:retire?dryRun=true', reason);
      expect(inUse.status).toBe(409);
      expect(inUse.body.error).toMatchObject({ code: 'calendar_in_use', details: { calendar: 'desk-office', processes: [{ key: 'desk-request', version: 1, openInstances: 0 }], total: 1 } });

      const processRetire = '/api/v1/process-definitions/{key}:retire';
      const dry = await drive('POST', processRetire, '/api/v1/process-definitions/desk-request:retire?dryRun=true', reason);
      expect(dry.body).toMatchObject({ key: 'desk-request', status: 'retired', openInstances: 0, byVersion: [] });
      expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body.status).toBe('active');

      const real = await drive('POST', processRetire, '/api/v1/process-definitions/desk-request:retire', reason, { headers: idem() });
      expect(real.status).toBe(200);
      const repeated = await drive('POST', processRetire, '/api/v1/process-definitions/desk-request:retire', { reason: 'again' }, { headers: idem() });
      expect(repeated.body.retired).toEqual(real.body.retired);
      const read = await drive('GET', '/api/v1/process-definitions/{ref}', '/api/v1/process-definitions/desk-request', undefined);
      expect(read.body).toMatchObject({ status: 'retired', retired: { reason: 'retired by package installation' } });

      const calendar = await drive('POST', calendarRetire, '/api/v1/calendars/desk-office:retire', reason, { headers: idem() });
      expect(calendar.status).toBe(200);
      expect(calendar.body).toMatchObject({ key: 'desk-office', status: 'retired' });

      expect((await drive('POST', processRetire, '/api/v1/process-definitions/nope:retire', reason)).status).toBe(404);
      const noReason = await drive('POST', processRetire, '/api/v1/process-definitions/desk-request:retire', { reason: '' }, { requestValid: false });
      expect(noReason.status).toBe(400);
      expect(noReason.body.error.details.errors).toEqual([{ loc: 'body.reason', message: 'String should have at least 1 character' }]);
      const unknown = await drive('POST', processRetire, '/api/v1/process-definitions/nope:retire', reason);
      expect(unknown.body.error).toMatchObject({ code: 'not_found', details: { process: 'nope' } });
    });

    it('restores a retired process when its package brings it unchanged', async () => {
      const files = packageFiles(DESK);
      const plan = await drive('POST', '/api/v1/packages:plan', '/api/v1/packages:plan', { package: { files } });
      expect(plan.body.changes.filter((c: any) => c.action === 'restore').map((c: any) => c.key)).toEqual(['desk-office', 'desk-request']);
      expect(plan.body.processes).toEqual([]);
      const applied = await drive('POST', '/api/v1/packages:apply', '/api/v1/packages:apply', { package: { files }, planHash: plan.body.planHash }, { headers: idem() });
      expect(applied.status).toBe(200);
      expect(applied.body.applied.find((a: any) => a.key === 'desk-request')).toEqual({ kind: 'Process', key: 'desk-request', action: 'restore', version: 1 });
      expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ status: 'active', version: 1, latestVersion: 1, retired: null });
    });
  });

  describe('knowledge packs', () => {
    const manifest = { name: 'claims', version: 1, kinds: [{ kind: 'claim', idPatterns: ['C-*'] }], relations: [{ relation: 'about' }] };

    it('registers an immutable version: created, then unchanged, then 409 for other content', async () => {
      const created = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', manifest, { headers: idem() });
      expect(created.body).toMatchObject({ status: 'created', pack: { name: 'claims', version: '1', ref: 'claims@1', scope: 'common' } });
      const again = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', manifest, { headers: idem() });
      expect(again.body.status).toBe('unchanged');
      const other = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', { ...manifest, relations: [] }, { headers: idem() });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('pack_version_conflict');
      for (const [body, field] of [[{ version: 1 }, 'name'], [{ name: ' ', version: 1 }, 'name'], [{ name: 'claims' }, 'version'], [{ name: 'claims', version: true }, 'version'], [{ name: 'Claims!', version: 1 }, 'name']] as const) {
        const invalid = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', body);
        expect(invalid.status).toBe(422);
        expect(invalid.body.error).toMatchObject({ code: 'pack_invalid', details: { field } });
      }
      const clash = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', { ...manifest, scope: 'tenant' });
      expect(clash.status).toBe(422);
      expect(clash.body.error).toMatchObject({ code: 'pack_invalid', details: { field: 'name' } });
      const tenant = await drive('POST', '/api/v1/knowledge/packs', '/api/v1/knowledge/packs', { ...manifest, name: 'claims-desk', scope: 'tenant' });
      expect(tenant.body.pack.ref).toBe('tenant:claims-desk@1');
    });

    it('reads a pack by name@version, by name, and tenant:name@version', async () => {
      for (const ref of ['claims@1', 'claims', 'tenant:claims-desk@1', 'tenant:claims-desk']) {
        const read = await drive('GET', '/api/v1/knowledge/packs/{ref}', `/api/v1/knowledge/packs/${encodeURIComponent(ref)}`, undefined);
        expect(read.status, ref).toBe(200);
        expect(read.body.kinds).toEqual(manifest.kinds);
      }
      const unknown = await drive('GET', '/api/v1/knowledge/packs/{ref}', '/api/v1/knowledge/packs/claims@2', undefined);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'not_found', details: { pack: 'claims@2' } });
      const malformed = await drive('GET', '/api/v1/knowledge/packs/{ref}', `/api/v1/knowledge/packs/${encodeURIComponent('Claims@@1')}`, undefined);
      expect(malformed.status).toBe(422);
      expect(malformed.body.error.code).toBe('invalid_pack_ref');
    });

    it('keeps one pack set per workspace tree', async () => {
      const path = '/api/v1/workspaces/{workspace_id}/knowledge-packs';
      const before = await drive('GET', path, `/api/v1/workspaces/${CHILD_WORKSPACE}/knowledge-packs`, undefined);
      expect(before.body).toMatchObject({ workspaceId: CHILD_WORKSPACE, rootWorkspaceId: WORKSPACE, configured: false, packs: [] });
      const put = await drive('PUT', path, `/api/v1/workspaces/${WORKSPACE}/knowledge-packs`, { packs: ['default@1', ' claims@1', 'claims@1'], strict: true }, { headers: idem() });
      expect(put.status).toBe(200);
      const after = await drive('GET', path, `/api/v1/workspaces/${CHILD_WORKSPACE}/knowledge-packs`, undefined);
      expect(after.body).toMatchObject({ configured: true, packs: ['default@1', 'claims@1'], strict: true, effective: ['default@1', 'claims@1'] });
      const child = await drive('PUT', path, `/api/v1/workspaces/${CHILD_WORKSPACE}/knowledge-packs`, { packs: ['claims@1'] });
      expect(child.status).toBe(422);
      expect(child.body.error).toMatchObject({ code: 'workspace_not_root', details: { workspaceId: CHILD_WORKSPACE, rootWorkspaceId: WORKSPACE } });
      const unpinned = await drive('PUT', path, `/api/v1/workspaces/${WORKSPACE}/knowledge-packs`, { packs: ['claims@1', 'default', 'tenant:claims'] });
      expect(unpinned.status).toBe(422);
      expect(unpinned.body.error).toMatchObject({ code: 'pack_version_required', details: { packs: ['default', 'tenant:claims'] } });
      expect((await drive('PUT', path, `/api/v1/workspaces/${WORKSPACE}/knowledge-packs`, { packs: 'claims@1' }, { requestValid: false })).status).toBe(400);
      expect((await drive('GET', path, `/api/v1/workspaces/${UNKNOWN}/knowledge-packs`, undefined)).status).toBe(404);
      expect((await drive('GET', path, '/api/v1/workspaces/not-a-uuid/knowledge-packs', undefined)).status).toBe(400);
    });
  });

  describe('look-ups of seeded objects', () => {
    it.each([
      ['/api/v1/workspaces/{workspace_id}', 'workspaces', WORKSPACE],
      ['/api/v1/projects/{project_id}', 'projects', PROJECT],
      ['/api/v1/principals/{principal_id}', 'principals', PRINCIPAL],
      ['/api/v1/roles/{role_id}', 'roles', ROLE],
    ])('%s: the seeded id, and 404 for another', async (template, collection, id) => {
      const found = await drive('GET', template, `/api/v1/${collection}/${id}`, undefined);
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(id);
      expect((await drive('GET', template, `/api/v1/${collection}/${UNKNOWN}`, undefined)).status).toBe(404);
      const malformed = await drive('GET', template, `/api/v1/${collection}/not-a-uuid`, undefined);
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.details.errors).toEqual([{ loc: 'path.id', message: 'Input should be a valid UUID' }]);
    });
  });
}
