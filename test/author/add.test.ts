/** `add` of every kind keeps `check` green; kinds by any of their names; existing keys and files are refused. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addObject } from '../../src/author/add.js';
import { SCHEMA_DIR } from '../../src/author/hints.js';
import { AUTHOR_KINDS, resolveKind } from '../../src/author/kinds.js';
import { Refusal } from '../../src/fs/refusal.js';
import { check } from '../../src/check/index.js';
import { runTests } from '../../src/sandbox/index.js';

let root: string;
let pkg: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'package-sdk-add-'));
  pkg = join(root, 'shop');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: shop\nspec:\n  version: 0.1.0\n  displayName: Shop\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function findings(options: { packages?: string[]; install?: string }): Promise<string[]> {
  const { report } = await check({ cwd: root, ...options });
  return [...report.errors, ...report.warnings].map((f) => `${f.file}:${f.line}: ${f.code}: ${f.message}`);
}

describe('add', () => {
  it('adds one object of each of the 18 kinds and check stays clean (no errors, no warnings)', async () => {
    expect(AUTHOR_KINDS).toHaveLength(18);
    const created: string[] = [];
    for (const kind of AUTHOR_KINDS) {
      const key = kind === 'Package' ? 'shop-base' : `new-${kind.toLowerCase()}`;
      const result = await addObject({ kind, key, packageDir: pkg, cwd: root });
      created.push(...result.created);
      expect(await findings({ packages: ['shop'] }), `after add ${kind}`).toEqual([]);
    }
    expect(created).toContain('shop/processes/new-process.yaml');
    expect(created).toContain('shop/agents/new-process-process.yaml');
    expect(created).toContain('shop/roles/new-process-owner.yaml');
    expect(created).toContain('shop-base/package.yaml');
    expect(created).toContain('new-installation.yaml');
    expect(await findings({ install: 'new-installation.yaml' })).toEqual([]);
    expect(await findings({ packages: ['shop-base'] })).toEqual([]);
  });

  it.each([
    ['TaskType', 'TaskType'], ['task-type', 'TaskType'], ['task-types', 'TaskType'], ['tasktype', 'TaskType'],
    ['rule', 'WorkRule'], ['rules', 'WorkRule'], ['work-rule', 'WorkRule'], ['process', 'Process'], ['processes', 'Process'],
    ['notification-rules', 'NotificationRule'], ['knowledge-packs', 'KnowledgePack'], ['view', 'View'], ['capabilities', 'Capability'],
    ['connection_type', 'ConnectionType'], ['Installation', 'Installation'],
  ])('kind %s is %s', (name, kind) => expect(resolveKind(name)).toBe(kind));

  it('puts the object in its conventional folder with the modeline and the optional fields as comments', async () => {
    await addObject({ kind: 'task-types', key: 'order-review', packageDir: pkg, cwd: root });
    const text = readFileSync(join(pkg, 'task-types/order-review.yaml'), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=(\.\.\/)+.*schema\/v1\/object\.schema\.json$/);
    expect(text).toContain('  # Optional fields (docs/schema-reference.md):\n');
    expect(text).toMatch(/^ {2}# {3}approvalSchema: approvalSchema$/m);
    expect(text).not.toMatch(/^ {2}# {3}displayName:/m); // written, so not a hint
  });

  it('points every modeline, a view\'s too, at object.schema.json in schema/v1 at the repository root, copied there once', async () => {
    mkdirSync(join(root, '.git'));
    const first = await addObject({ kind: 'view', key: 'orders', packageDir: pkg, cwd: root });
    expect(first.created).toContain('.schema/v1/object.schema.json');
    expect(readFileSync(join(root, '.schema/v1/view.schema.json'), 'utf8')).toBe(readFileSync(join(SCHEMA_DIR, 'view.schema.json'), 'utf8'));
    expect(readFileSync(join(pkg, 'views/orders.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../../.schema/v1/object.schema.json');
    const second = await addObject({ kind: 'role', key: 'clerk', packageDir: pkg, cwd: root });
    expect(second.created).toEqual(['shop/roles/clerk.yaml']);
    expect(existsSync(join(pkg, '.schema'))).toBe(false);
  });

  it('add test writes a first scenario of a process, a work rule and a task type that check accepts and that passes', async () => {
    const created: string[] = [];
    for (const [kind, key] of [['process', 'order'], ['rule', 'order-reopened'], ['task-type', 'order-review']] as const) {
      await addObject({ kind, key, packageDir: pkg, cwd: root });
      created.push(...(await addObject({ kind: 'test', key, packageDir: pkg, cwd: root })).created);
    }
    expect(created).toEqual(['shop/tests/order.test.yaml', 'shop/tests/order-reopened.test.yaml', 'shop/tests/order-review.test.yaml']);
    expect(await findings({ packages: ['shop'] })).toEqual([]);
    const { report } = await runTests({ cwd: root, paths: ['shop'] });
    expect(report.tests.map((test) => `${test.file}: ${test.status}`).sort()).toEqual(created.map((file) => `${file}: passed`).sort());
    expect(report).toMatchObject({ passed: 3, failed: 0, errors: 0 });
  });

  it('add test refuses a key that names no process, rule or task type of the package', async () => {
    await expect(addObject({ kind: 'test', key: 'nothing', packageDir: pkg, cwd: root })).rejects.toMatchObject({ code: 'unknown_subject' });
  });

  it('refuses a key that exists, an unknown kind and an invalid key, and writes nothing', async () => {
    await addObject({ kind: 'Role', key: 'clerk', packageDir: pkg, cwd: root });
    const refusal = (options: Parameters<typeof addObject>[0]) => addObject(options).then(() => undefined, (error: unknown) => error);
    const exists = await refusal({ kind: 'roles', key: 'clerk', packageDir: pkg, cwd: root });
    expect(exists).toBeInstanceOf(Refusal);
    expect(exists).toMatchObject({ code: 'object_exists', message: "Role 'clerk' already exists in shop/roles/clerk.yaml; choose another key" });
    expect(await refusal({ kind: 'gadget', key: 'x', packageDir: pkg, cwd: root })).toMatchObject({ code: 'unknown_kind' });
    expect(await refusal({ kind: 'TaskType', key: 'Order Review', packageDir: pkg, cwd: root })).toMatchObject({ code: 'invalid_key' });
    writeFileSync(join(pkg, 'roles/manual.yaml'), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: manager\nspec: {name: Manager}\n');
    expect(await refusal({ kind: 'Role', key: 'manual', packageDir: pkg, cwd: root })).toMatchObject({ code: 'file_exists' });
    expect(readFileSync(join(pkg, 'roles/manual.yaml'), 'utf8')).toContain('key: manager');
    expect(existsSync(join(pkg, 'task-types'))).toBe(false);
  });

  it('keeps the agent and the role a process would bring when they already exist', async () => {
    await addObject({ kind: 'Role', key: 'intake-owner', packageDir: pkg, cwd: root });
    const before = readFileSync(join(pkg, 'roles/intake-owner.yaml'), 'utf8');
    const result = await addObject({ kind: 'Process', key: 'intake', packageDir: pkg, cwd: root });
    expect(result.created).toEqual(['shop/processes/intake.yaml', 'shop/agents/intake-process.yaml']);
    expect(readFileSync(join(pkg, 'roles/intake-owner.yaml'), 'utf8')).toBe(before);
    expect(await findings({ packages: ['shop'] })).toEqual([]);
  });
});
