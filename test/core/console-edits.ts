import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contracts, DESK, type TestCore, packageFiles, startTestCore } from './support.js';

/**
 * Console edits (compat-core-packages §4.4): someone changes a published object — in the console (the admin
 * route) or through an ordinary route — and the next plan names each changed field `owner: console`; apply
 * keeps it unless the plan was built with `overwriteConsole`, and the flag is part of the plan hash.
 * `/packages:record` hands the fields back to the package. Plans, applies and refusals are checked against
 * `contracts.install` (our document in `npm test`, the real core's slice in the conformance suite).
 */
export function describeConsoleEdits(contracts: Contracts): void {
  let core: TestCore;
  let files = packageFiles(DESK);
  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  async function plan(overwriteConsole?: boolean) {
    const answer = await core.call('POST', '/api/v1/packages:plan', { body: { package: { files }, ...(overwriteConsole === undefined ? {} : { overwriteConsole }) } });
    expect(answer.status).toBe(200);
    contracts.install.valid('PackagePlanOut', answer.body);
    return answer.body;
  }

  async function apply(planHash: string, overwriteConsole?: boolean) {
    const answer = await core.call('POST', '/api/v1/packages:apply', { body: { package: { files }, planHash, ...(overwriteConsole === undefined ? {} : { overwriteConsole }) }, headers: idem() });
    if (answer.status === 200) contracts.install.valid('PackageApplyOut', answer.body);
    return answer;
  }

  const edit = (body: unknown, token?: string) => core.call('POST', '/admin/console-edits', { body, ...(token ? { token } : {}) });
  const change = (planned: any, key: string) => planned.changes.find((c: any) => c.key === key);
  const activeTaskTypes = async () => (await core.call('GET', '/api/v1/task-types?key=desk-review&status=active')).body.items.map((t: any) => [t.version, t.displayName]);

  beforeAll(async () => {
    core = await startTestCore();
    const first = await plan();
    expect((await apply(first.planHash)).status).toBe(200);
  });
  afterAll(() => core.dispose());

  describe('console edits', () => {
    it('is an admin route behind the token that only edits published objects', async () => {
      expect((await edit({ kind: 'TaskType', key: 'desk-review', path: 'displayName', value: 'x' }, 'wrong')).status).toBe(401);
      const unpublished = await edit({ kind: 'TaskType', key: 'nope', path: 'displayName', value: 'x' });
      expect(unpublished.status).toBe(422);
      expect(unpublished.body.error.code).toBe('not_published');
      expect((await edit({ kind: 'Role', key: 'desk-agent', path: 'name', value: 'x' })).status).toBe(400);
    });

    it('publishes the edit as the console would; the next plan keeps it as the console\'s, so nothing changes', async () => {
      const edited = await edit({ kind: 'TaskType', key: 'desk-review', path: 'displayName', value: 'Review a request (console)' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ before: 'Review a request', after: 'Review a request (console)', version: 2 });
      expect(await activeTaskTypes()).toEqual([[2, 'Review a request (console)']]);

      const kept = await plan();
      expect(change(kept, 'desk-review')).toEqual({
        kind: 'TaskType', key: 'desk-review', action: 'unchanged', renamedFrom: null, deprecates: [],
        fields: [{ path: '/spec/displayName', before: 'Review a request (console)', after: 'Review a request', owner: 'console', applies: false }],
      });
      const overwritten = await plan(true);
      expect(change(overwritten, 'desk-review')).toMatchObject({ action: 'update', fields: [{ owner: 'console', applies: true }], deprecates: [2] });
      expect(overwritten.planHash).not.toBe(kept.planHash);
    });

    it('a plan built without the flag cannot be applied with it: the flag is part of the hash', async () => {
      const kept = await plan();
      const flipped = await apply(kept.planHash, true);
      expect(flipped.status).toBe(409);
      expect(flipped.body.error.code).toBe('plan_stale');
    });

    it('apply without overwriteConsole keeps the person\'s value; with it, the package value wins and the field is the package\'s again', async () => {
      const kept = await plan();
      const applied = await apply(kept.planHash);
      expect(applied.status).toBe(200);
      expect(applied.body.applied.find((a: any) => a.key === 'desk-review')).toEqual({ kind: 'TaskType', key: 'desk-review', action: 'unchanged', version: 2 });
      expect(await activeTaskTypes()).toEqual([[2, 'Review a request (console)']]);
      expect(change(await plan(), 'desk-review').fields[0].owner).toBe('console');

      const overwrite = await plan(true);
      expect((await apply(overwrite.planHash, true)).status).toBe(200);
      expect(await activeTaskTypes()).toEqual([[3, 'Review a request']]);
      const clean = await plan();
      expect(clean.changes.every((c: any) => c.action === 'unchanged' && c.fields.length === 0)).toBe(true);
    });

    it('an edit between plan and apply makes the plan stale', async () => {
      const before = await plan();
      expect((await edit({ kind: 'WorkRule', key: 'desk-reopened', path: 'description', value: 'Changed by a person' })).status).toBe(200);
      const rule = (await core.call('GET', '/api/v1/rules?key=desk-reopened')).body.items.find((r: any) => r.status !== 'archived');
      expect(rule.description).toBe('Changed by a person');
      const stale = await apply(before.planHash);
      expect(stale.status).toBe(409);
      contracts.install.valid('ErrorEnvelope', stale.body);
      expect(stale.body.error.code).toBe('plan_stale');
    });

    it('a change through the ordinary routes is the console\'s too, until /packages:record gives the fields back', async () => {
      const rule = (await core.call('GET', '/api/v1/rules?key=desk-reopened')).body.items.find((r: any) => r.status !== 'archived');
      const patched = await core.call('PATCH', `/api/v1/rules/${rule.id}`, { body: { condition: { exists: 'payload.reason' } }, headers: { 'If-Match': `"rule-${rule.version}"` } });
      expect(patched.status).toBe(200);
      const kept = change(await plan(), 'desk-reopened');
      expect(kept.action).toBe('unchanged');
      expect(kept.fields.map((f: any) => [f.path, f.owner, f.applies])).toEqual([['/spec/description', 'console', false], ['/spec/condition', 'console', false]]);

      const recorded = await core.call('POST', '/api/v1/packages:record', { body: { package: { key: 'desk', version: '0.1.0' }, objects: [{ kind: 'WorkRule', key: 'desk-reopened' }] } });
      expect(recorded.status).toBe(200);
      const handedBack = change(await plan(), 'desk-reopened');
      expect(handedBack.action).toBe('update');
      expect(handedBack.fields.map((f: any) => [f.path, f.owner, f.applies])).toEqual([['/spec/description', 'package', true], ['/spec/condition', 'package', true]]);
    });

    it('a process edited in the console needs a higher version in the package: its version is never the console\'s', async () => {
      expect((await edit({ kind: 'Process', key: 'desk-request', path: 'start.key', value: 'event.payload.ticket' })).status).toBe(200);
      expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ version: 2, spec: { version: 2, start: { key: 'event.payload.ticket' } } });
      const conflicting = await plan();
      expect(change(conflicting, 'desk-request')).toMatchObject({ action: 'update', fields: [{ path: '/spec/version', before: 2, after: 1, owner: 'package', applies: true }, { path: '/spec/start', owner: 'console', applies: false }] });
      expect(conflicting.problems).toEqual([expect.objectContaining({ code: 'process_version_conflict', severity: 'error', path: '/spec/version', file: 'processes/desk-request.yaml' })]);
      const refused = await apply(conflicting.planHash);
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('invalid_package');

      files = files.map((f) => (f.path === 'processes/desk-request.yaml' ? { ...f, content: f.content.replace('version: 1', 'version: 3') } : f));
      const bumped = await plan();
      expect(bumped.processes).toEqual([{ key: 'desk-request', fromVersion: 2, toVersion: 3, behaviour: null, instances: [], deadlines: [], deadlinesTotal: 0 }]);
      expect((await apply(bumped.planHash)).status).toBe(200);
      expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ version: 3, spec: { version: 3, start: { key: 'event.payload.ticket' } } });
    });
  });
}
