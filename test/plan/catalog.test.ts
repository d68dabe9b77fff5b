/**
 * The installer's catalog section through `plan()` and `apply()`, against the real local core over HTTP:
 * a package without processes (fixtures/plan/installer), created, changed kind by kind, retired.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apply } from '../../src/plan/apply.js';
import type { Change, PlanDocument } from '../../src/plan/document.js';
import { plan } from '../../src/plan/plan.js';
import { startTestCore, tempDir, type TestCore } from '../core/support.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/plan/installer');

let core: TestCore;
let dir: string;
let env: NodeJS.ProcessEnv;

const install = () => join(dir, 'packages.yaml');
const out = () => join(dir, 'plan.json');
const planNow = (file = install()) => plan({ install: file, server: core.url, processEnv: env, out: out() });
const applyNow = () => apply({ plan: out(), processEnv: env, autoApprove: true });
const catalog = (document: PlanDocument): Change[] => (document.sections[0] as { changes: Change[] }).changes;
const brief = (changes: readonly Change[]) => changes.map((c) => `${c.kind}/${c.key} ${c.operation}${c.fields ? ` ${c.fields.join(',')}` : ''}`);

function edit(path: string, from: string | RegExp, to: string): void {
  const file = join(dir, 'frontdesk', path);
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  expect(next, `${path} should change`).not.toBe(text);
  writeFileSync(file, next);
}

beforeEach(async () => {
  core = await startTestCore();
  dir = tempDir('plan-catalog-');
  cpSync(FIXTURE, dir, { recursive: true });
  env = { CP_TOKEN: core.token, FRONTDESK_API: 'https://frontdesk.example.com/api' };
});
afterEach(async () => {
  await core.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('the catalog section', () => {
  it('creates every kind, records the package, and then has nothing to do', async () => {
    const first = await planNow();
    expect(first.document.sections.map((s) => s.kind)).toEqual(['catalog', 'knowledge', 'notification-rules', 'retire']);
    expect(brief(catalog(first.document))).toEqual([
      'WorkspaceType/office create', 'Capability/visitor-triage create', 'Role/receptionist create', 'Skill/visitor.lookup create',
      'ArtifactType/visitor-badge create', 'TaskType/visitor-request create', 'Agent/frontdesk-observer create', 'WorkRule/visitor-arrived create',
    ]);
    const result = await applyNow();
    expect(result.applied.map((a) => `${a.kind}/${a.key}`)).toHaveLength(8);
    const skill = (await core.call('GET', '/api/v1/skills?name=visitor.lookup&limit=100')).body.items[0];
    expect(skill).toMatchObject({ version: '1', config: { baseUrl: 'https://frontdesk.example.com/api' }, package: { key: 'frontdesk', version: '1.0.0' } });
    expect(catalog((await planNow()).document)).toEqual([]);
  });

  it('changes each kind the way the core allows: patches, new versions with deprecation, rule status', async () => {
    await planNow();
    await applyNow();
    edit('workspace-types/office.yaml', 'displayName: Office', 'displayName: Front office');
    edit('roles/receptionist.yaml', 'Greets visitors', 'Welcomes visitors');
    edit('skills/visitor.lookup.yaml', 'Finds a visitor', 'Looks up a visitor');
    edit('artifact-types/visitor-badge.yaml', 'The printed badge', 'The badge');
    edit('task-types/visitor-request.yaml', 'A visitor asked', 'A visitor asks');
    edit('agents/frontdesk-observer.yaml', 'displayName: Front desk observer', 'displayName: Front desk watcher');
    edit('rules/visitor-arrived.yaml', 'gets a request', 'gets a request\n  status: disabled');
    const changed = await planNow();
    expect(brief(catalog(changed.document))).toEqual([
      'WorkspaceType/office patch displayName', 'Role/receptionist patch description', 'Skill/visitor.lookup patch description',
      'ArtifactType/visitor-badge version description', 'TaskType/visitor-request version description', 'TaskType/visitor-request deprecate',
      'Agent/frontdesk-observer version', 'WorkRule/visitor-arrived disable',
    ]);
    expect(catalog(changed.document).find((c) => c.operation === 'deprecate')).toMatchObject({ version: 1, expected: { active: [1] } });
    await applyNow();
    expect(catalog((await planNow()).document)).toEqual([]);
    const versions = (await core.call('GET', '/api/v1/task-types?key=visitor-request&limit=100')).body.items.map((r: { version: number; status: string }) => `${r.version} ${r.status}`);
    expect(versions.sort()).toEqual(['1 deprecated', '2 active']);
    expect((await core.call('GET', '/api/v1/rules?key=visitor-arrived&limit=100')).body.items[0]).toMatchObject({ status: 'disabled', description: 'An arrived visitor gets a request' });
  });

  it('refuses to change an immutable field of a published skill version', async () => {
    await planNow();
    await applyNow();
    edit('skills/visitor.lookup.yaml', 'riskLevel: low', 'riskLevel: high');
    await expect(planNow()).rejects.toMatchObject({ code: 'catalog_conflict', hint: 'bump spec.version', message: expect.stringContaining('riskLevel differs from version 1') });
  });

  it('refuses a plan whose catalog moved on the core, before writing anything', async () => {
    await planNow();
    await applyNow();
    edit('roles/receptionist.yaml', 'Greets visitors', 'Welcomes visitors');
    await planNow();
    const role = (await core.call('GET', '/api/v1/roles?limit=100')).body.items.find((r: { slug: string }) => r.slug === 'receptionist');
    const patched = await core.call('PATCH', `/api/v1/roles/${role.id}`, { body: { name: 'Front desk' }, headers: { 'If-Match': `"role-${role.version}"` } });
    expect(patched.status).toBe(200);
    await expect(applyNow()).rejects.toMatchObject({ code: 'plan_stale', message: 'the plan is stale — section catalog: Role/receptionist patch: fields is ["description"] in the plan, ["name","description"] on the core now' });
    expect((await core.call('GET', `/api/v1/roles/${role.id}`)).body.description).toBe('Greets visitors and files their requests');
  });

  it('retires what spec.retire names: agents, rules, task type versions', async () => {
    await planNow();
    await applyNow();
    const retiring = join(dir, 'retire.yaml');
    writeFileSync(retiring, 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: frontdesk\nspec:\n  packages: []\n  retire:\n' +
      '    Agent: [frontdesk-observer]\n    WorkRule: [visitor-arrived]\n    TaskType: [visitor-request]\n');
    const retire = (await planNow(retiring)).document.sections.at(-1) as { items: Change[] };
    expect(brief(retire.items)).toEqual(['Agent/frontdesk-observer retire', 'WorkRule/visitor-arrived retire', 'TaskType/visitor-request deprecate']);
    await applyNow();
    expect(((await planNow(retiring)).document.sections.at(-1) as { items: Change[] }).items).toEqual([]);
    expect((await core.call('GET', '/api/v1/agents/frontdesk-observer')).body).toMatchObject({ status: 'retired' });
  });
});
