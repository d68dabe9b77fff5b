/**
 * `export` round-trips: a package applied to the real local core, exported kind by kind into an empty folder, checks
 * clean, and a plan of the exported package against the same core changes nothing.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportObjects } from '../../src/author/export.js';
import { localCore } from '../../src/cli/local-core.js';
import { check } from '../../src/check/index.js';
import { apply } from '../../src/plan/apply.js';
import { plan } from '../../src/plan/plan.js';
import { Refusal } from '../../src/fs/refusal.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const INSTALLATION = 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: dev\nspec:\n  packages: [intake]\n';
const source = overlay(join(FIXTURES, 'edit/packages'), { 'packages.yaml': INSTALLATION });
const target = overlay(join(FIXTURES, 'edit/packages'), { intake: null, 'packages.yaml': INSTALLATION });
const dataDir = join(source, '.core');
afterAll(() => [source, target].forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const core = { server: 'local', localCore, localDataDir: dataDir };
const exported = (kind: string, key: string) => exportObjects({ ...core, kind, keys: [key], packageDir: join(target, 'intake'), cwd: target });

describe('export', () => {
  it('writes what a package applied to a core holds back into a package that checks clean and plans no change', async () => {
    await plan({ install: join(source, 'packages.yaml'), out: join(source, 'plan.json'), ...core });
    await apply({ plan: join(source, 'plan.json'), autoApprove: true, ...core });

    const results = [];
    for (const [kind, key] of [['TaskType', 'intake-review'], ['Role', 'intake-owner'], ['Agent', 'intake-process'], ['Process', 'intake']] as const) results.push(await exported(kind, key));
    expect(results.flatMap((result) => result.created).filter((file) => !file.startsWith('intake/.schema/v1/'))).toEqual([
      'intake/package.yaml', 'intake/task-types/intake-review.yaml', 'intake/roles/intake-owner.yaml', 'intake/agents/intake-process.yaml', 'intake/processes/intake.yaml',
    ]);
    expect(results.flatMap((result) => result.notAllowed)).toEqual([]);
    const text = readFileSync(join(target, 'intake/processes/intake.yaml'), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../.schema/v1/object.schema.json');
    expect(text).toContain('  start:\n    "on":\n      observation: intake.requested\n');

    const { report } = await check({ cwd: target, paths: ['intake'] });
    expect(report.errors).toEqual([]);
    const again = await plan({ install: join(target, 'packages.yaml'), ...core });
    const changes = again.document.sections.flatMap((section) => [
      ...((section as { changes?: { operation: string; kind: string; key: string }[] }).changes ?? []).filter((change) => change.operation !== 'unchanged').map((c) => `${c.kind}/${c.key} ${c.operation}`),
      ...((section as { plan?: { changes?: { action: string; kind: string; key: string }[] } }).plan?.changes ?? []).filter((change) => change.action !== 'unchanged').map((c) => `${c.kind}/${c.key} ${c.action}`),
    ]);
    expect(changes).toEqual([]);
  }, 60_000);

  it('never replaces a file unless asked (--overwrite), and then only a file that differs', async () => {
    const dir = join(target, 'intake');
    const same = await exportObjects({ ...core, kind: 'Process', keys: ['intake'], packageDir: dir, cwd: target, overwrite: true });
    expect([same.created, same.updated]).toEqual([[], []]);
    writeFileSync(join(dir, 'roles/intake-owner.yaml'), '');
    const refusal = await exported('Role', 'intake-owner').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe('file_exists');
  });

  it('refuses an object the core does not have', async () => {
    const refusal = await exported('TaskType', 'nowhere').catch((error: unknown) => error);
    expect((refusal as Refusal).code).toBe('object_not_found');
  });
});
