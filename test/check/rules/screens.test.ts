import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCatalog } from '../../../src/check/catalog.js';
import { check } from '../../../src/check/index.js';

const CORPUS = join(import.meta.dirname, '../../../../shared/corpus');

describe('the screens package of the corpus', () => {
  it('checks clean: no error and no warning', async () => {
    const { report } = await check({ cwd: join(CORPUS, 'fixtures/screens') });
    expect(report.objects).toBe(5);
    expect([...report.errors, ...report.warnings]).toEqual([]);
  });
});

describe('codes that several families report', () => {
  it('are one catalog entry naming every family, with both severities when they differ', () => {
    const roles = codeCatalog().filter((info) => info.code === 'unknown_role');
    expect(roles).toHaveLength(1);
    expect(roles[0]?.source).toContain('references/closure');
    expect(roles[0]?.source).toContain('screens/references');
    expect(roles[0]?.severity).toBe('warning/error');
  });
});
