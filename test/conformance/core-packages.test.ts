import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OURS, packageFiles, startTestCore } from '../core/support.js';
import { corpus } from './corpus.js';
import { REAL } from './core-support.js';

/** Real packages of the corpus on the local core: each plans clean, applies, and plans again as unchanged. */
describe('real packages of the corpus', () => {
  const idem = () => ({ 'Idempotency-Key': randomUUID() });

  it.each(['claims/claims', 'fixtures/sla/packages/sla-demo', 'fixtures/screens/packages/invoice-payment'])('%s plans without problems, applies, and plans again as unchanged', async (dir) => {
    const fresh = await startTestCore();
    try {
      const files = packageFiles(corpus(dir));
      const plan = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files } }, headers: idem() });
      for (const contract of [REAL.install, OURS.install]) contract.answer('/api/v1/packages:plan', 'POST', plan);
      expect(plan.body.problems).toEqual([]);
      expect(plan.body.changes.length).toBeGreaterThan(0);
      expect(plan.body.changes.every((c: any) => c.action === 'create')).toBe(true);
      const applied = await fresh.call('POST', '/api/v1/packages:apply', { body: { package: { files }, planHash: plan.body.planHash }, headers: idem() });
      for (const contract of [REAL.install, OURS.install]) contract.answer('/api/v1/packages:apply', 'POST', applied);
      expect(applied.status).toBe(200);
      const again = await fresh.call('POST', '/api/v1/packages:plan', { body: { package: { files } }, headers: idem() });
      expect(again.body.changes.map((c: any) => c.action)).toEqual(plan.body.changes.map(() => 'unchanged'));
    } finally {
      await fresh.dispose();
    }
  });
});
