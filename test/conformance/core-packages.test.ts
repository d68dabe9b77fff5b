import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSeed } from '../../src/server/seed.js';
import { OURS, clientFiles, startTestCore } from '../core/support.js';
import { corpus } from './corpus.js';
import { REAL } from './core-support.js';

/**
 * Real packages of the corpus on the local core, sent as the Python package-sdk sends them (variables put in,
 * no KnowledgePack files): the core's checks find no error, and each plans clean, applies, and plans again as
 * unchanged, with answers the real core's slices admit.
 */
const WORKSPACE = '11111111-2222-4333-8444-555555555555';
const VALUES = { CLAIMS_WORKSPACE_ID: WORKSPACE, HELPDESK_URL: 'https://helpdesk.example.com/api' };
const PACKAGES = ['claims/claims', 'fixtures/sla/packages/sla-demo'];
/** The screens package's process names no identity: the core refuses it, as check does (static-check.test.ts). */
const SCREENS = 'fixtures/screens/packages/invoice-payment';

describe('real packages of the corpus', () => {
  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  it.each(PACKAGES)('%s passes the core\'s checks (checkOnly)', async (dir) => {
    const fresh = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE] }) });
    try {
      const files = await clientFiles(corpus(dir), VALUES);
      const answer = await fresh.call('POST', '/api/v1/packages:test?checkOnly=true', { body: { package: { files } } });
      OURS.install.answer('/api/v1/packages:test', 'POST', answer);
      expect(answer.body.problems.filter((p: any) => p.severity === 'error')).toEqual([]);
      expect(answer.body).toMatchObject({ status: 'passed', checkOnly: true, tests: [] });
    } finally {
      await fresh.dispose();
    }
  });

  it(`${SCREENS} is refused for the one identity its process lacks, and nothing else`, async () => {
    const fresh = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE] }) });
    try {
      const files = await clientFiles(corpus(SCREENS), VALUES);
      const answer = await fresh.call('POST', '/api/v1/packages:test?checkOnly=true', { body: { package: { files } } });
      OURS.install.answer('/api/v1/packages:test', 'POST', answer);
      expect(answer.body.status).toBe('invalid');
      expect(answer.body.problems.map((p: any) => `${p.severity} ${p.code} ${p.file}${p.path}`)).toEqual(['error process_identity_required processes/invoice-payment.yaml/spec/identity']);
    } finally {
      await fresh.dispose();
    }
  });

  it.each(PACKAGES)('%s plans without problems, applies, and plans again as unchanged', async (dir) => {
    const fresh = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE] }) });
    try {
      const files = await clientFiles(corpus(dir), VALUES);
      const plan = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files }, replayLimit: 50 } });
      for (const contract of [REAL.install, OURS.install]) contract.answer('/api/v1/packages:plan', 'POST', plan);
      expect(plan.body.problems).toEqual([]);
      expect(plan.body.changes.length).toBeGreaterThan(0);
      expect(plan.body.changes.every((c: any) => c.action === 'create')).toBe(true);
      const applied = await fresh.call('POST', '/api/v1/packages:apply', { body: { package: { files }, planHash: plan.body.planHash }, headers: idem() });
      for (const contract of [REAL.install, OURS.install]) contract.answer('/api/v1/packages:apply', 'POST', applied);
      expect(applied.status).toBe(200);
      expect(applied.body.applied.map((a: any) => `${a.kind}/${a.key}:${a.action}`)).toEqual(plan.body.changes.map((c: any) => `${c.kind}/${c.key}:create`));
      const again = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files } } });
      expect(again.body.changes.map((c: any) => [c.action, c.fields])).toEqual(plan.body.changes.map(() => ['unchanged', []]));
    } finally {
      await fresh.dispose();
    }
  });
});
