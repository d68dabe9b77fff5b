import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contracts, DESK, type TestCore, packageFiles, startTestCore } from './support.js';

/**
 * Console edits (compat-package-sdk-install §4.6, §6.2 emulator notes): a person changes a published
 * field; the next plan names it `owner: console`; apply keeps it unless the plan was built with
 * `overwriteConsole`, and the flag is part of the plan hash. Plans, applies and refusals are checked against
 * `contracts.install` (our document in `npm test`, the real core's slice in the conformance suite).
 */
export function describeConsoleEdits(contracts: Contracts): void {
  let core: TestCore;
  const files = packageFiles(DESK);
  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  async function plan(overwriteConsole?: boolean) {
    const answer = await core.call('POST', '/api/v1/packages:plan', { body: { package: { files }, ...(overwriteConsole === undefined ? {} : { overwriteConsole }) }, headers: idem() });
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
      expect((await edit({ kind: 'Role', key: 'desk-agent', path: 'name', value: 'x' })).status).toBe(422);
    });

    it('publishes the edit as the console would, and the next plan shows it as owner console, kept', async () => {
      const edited = await edit({ kind: 'TaskType', key: 'desk-review', path: 'displayName', value: 'Review a request (console)' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ before: 'Review a request', after: 'Review a request (console)', version: 2 });
      const active = (await core.call('GET', '/api/v1/task-types?key=desk-review&status=active')).body.items;
      expect(active.map((t: any) => [t.version, t.displayName])).toEqual([[2, 'Review a request (console)']]);

      const kept = await plan();
      const change = kept.changes.find((c: any) => c.key === 'desk-review');
      expect(change).toMatchObject({ action: 'update', fields: [{ path: 'displayName', before: 'Review a request (console)', after: 'Review a request', owner: 'console', applies: false }] });
      const overwritten = await plan(true);
      expect(overwritten.changes.find((c: any) => c.key === 'desk-review').fields[0].applies).toBe(true);
      expect(overwritten.planHash).not.toBe(kept.planHash);
    });

    it('a plan built without the flag cannot be applied with it: the flag is part of the hash', async () => {
      const kept = await plan();
      const flipped = await apply(kept.planHash, true);
      expect(flipped.status).toBe(409);
      expect(flipped.body.error.code).toBe('plan_stale');
    });

    it('apply without overwriteConsole keeps the person\'s value; with it, the package value wins and the edit is gone', async () => {
      const kept = await plan();
      expect((await apply(kept.planHash)).status).toBe(200);
      expect((await core.call('GET', '/api/v1/task-types?key=desk-review&status=active')).body.items[0].displayName).toBe('Review a request (console)');
      expect((await plan()).changes.find((c: any) => c.key === 'desk-review').fields[0].owner).toBe('console');

      const overwrite = await plan(true);
      expect((await apply(overwrite.planHash, true)).status).toBe(200);
      expect((await core.call('GET', '/api/v1/task-types?key=desk-review&status=active')).body.items[0].displayName).toBe('Review a request');
      const clean = await plan();
      expect(clean.changes.every((c: any) => c.action === 'unchanged')).toBe(true);
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

    it('a nested path edits inside a field, and the field is reported as console-owned', async () => {
      expect((await edit({ kind: 'Process', key: 'desk-request', path: 'start.key', value: 'event.payload.ticket' })).status).toBe(200);
      expect((await core.call('GET', '/api/v1/process-definitions/desk-request')).body).toMatchObject({ version: 2, spec: { start: { key: 'event.payload.ticket' } } });
      const next = await plan();
      expect(next.changes.find((c: any) => c.key === 'desk-request')).toMatchObject({ action: 'update', fields: [{ path: 'start', owner: 'console', applies: false }] });
      expect(next.processes).toEqual([{ key: 'desk-request', fromVersion: 2, toVersion: 3, behaviour: null, instances: [] }]);
    });
  });
}
