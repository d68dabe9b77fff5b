import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCatalog } from '../../../src/check/catalog.js';
import { check } from '../../../src/check/index.js';

const EXAMPLE = resolve(import.meta.dirname, '../../../fixtures/example');

describe('the screens of the example', () => {
  it('check clean: its views, components and dictionaries get no error and no warning', async () => {
    const { report, workspace } = await check({ cwd: EXAMPLE, install: 'packages.yaml' });
    expect(workspace.objects('View').map((view) => view.key).sort()).toEqual(['work-order-card', 'work-order-list']);
    expect(workspace.objects('Component').map((component) => component.key)).toEqual(['asset-summary']);
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
