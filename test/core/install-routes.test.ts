import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSeed } from '../../src/server/seed.js';
import { FIXTURES } from '../support/overlay.js';
import { describeInstallRoutes } from './install-routes.js';
import { clientFiles, OURS, startTestCore } from './support.js';

describeInstallRoutes(OURS);

/**
 * Whole packages of the project, each on a fresh core: the bundled example (processes with timers and a
 * work calendar, decision tables, views), the desk of the core fixtures, and the installer's package
 * without processes.
 */
describe('packages of the project', () => {
  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  const WORKSPACE = '5b0f6c1e-2a4d-4e8b-9c3f-7d1a2b3c4d5e';
  const VALUES = { MAINTENANCE_WORKSPACE_ID: WORKSPACE, FLEET_API_URL: 'https://fleet.example.org', STORES_API_URL: 'https://stores.example.org', FRONTDESK_API: 'https://frontdesk.example.org' };

  it.each(['example/packages/field-maintenance', 'core/packages/desk', 'plan/installer/frontdesk'])('%s, sent as the client sends it, plans without problems, applies, and plans again as unchanged', async (dir) => {
    const fresh = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE] }) });
    try {
      const files = await clientFiles(`${FIXTURES}/${dir}`, VALUES);
      expect(files.some((file) => /kind: KnowledgePack/.test(file.content) || file.content.includes('${'))).toBe(false);
      const plan = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files } }, headers: idem() });
      OURS.install.answer('/api/v1/packages:plan', 'POST', plan);
      expect(plan.body.problems).toEqual([]);
      expect(plan.body.changes.length).toBeGreaterThan(0);
      expect(plan.body.changes.every((c: any) => c.action === 'create')).toBe(true);
      const applied = await fresh.call('POST', '/api/v1/packages:apply', { body: { package: { files }, planHash: plan.body.planHash }, headers: idem() });
      OURS.install.answer('/api/v1/packages:apply', 'POST', applied);
      expect(applied.status).toBe(200);
      expect(applied.body.applied.map((a: any) => `${a.kind}/${a.key}`)).toEqual(plan.body.changes.map((c: any) => `${c.kind}/${c.key}`));
      const again = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files } }, headers: idem() });
      expect(again.body.changes.map((c: any) => c.action)).toEqual(plan.body.changes.map(() => 'unchanged'));
    } finally {
      await fresh.dispose();
    }
  });
});
