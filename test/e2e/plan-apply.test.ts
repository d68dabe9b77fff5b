/**
 * `package-sdk plan --out` and `apply --plan` as a CD pipeline runs them: the built CLI against the local
 * core served by `package-sdk core serve` over HTTP, on a copy of the claims example.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, scratchDir } from '../support/cli.js';
import {
  HELPDESK_URL, WORKSPACE, claimsEnv, copyClaims, spawnCli, startCoreProcess, startCuttingProxy, type CoreProcess,
} from '../plan/support.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const validatePlan = addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(
  JSON.parse(readFileSync(join(ROOT, 'schema/v1/plan.schema.json'), 'utf8')) as object);

let core: CoreProcess;
let claims: ReturnType<typeof copyClaims>;
let planFile: string;

const plan = (extra: string[] = [], env: Record<string, string | undefined> = {}, server = core.url) =>
  runCli(['plan', '--install', claims.install, '--server', server, '--out', planFile, ...extra], { cwd: claims.dir, env: claimsEnv(core, env) });
const apply = (extra: string[] = [], env: Record<string, string | undefined> = {}) =>
  runCli(['apply', '--plan', planFile, ...extra], { cwd: claims.dir, env: claimsEnv(core, env) });
const planHashOf = () => (JSON.parse(readFileSync(planFile, 'utf8')) as { planHash: string }).planHash;
const approved = () => apply(['--plan-hash', planHashOf()]);

async function installed(): Promise<void> {
  expect((await plan()).code).toBe(0);
  const result = await approved();
  expect(result.stderr).not.toContain('rror');
  expect(result.code, result.stderr).toBe(0);
}

async function taskTypeVersions(key: string): Promise<{ version: number; status: string }[]> {
  const { body } = await core.call<{ items: { version: number; status: string }[] }>('GET', `/api/v1/task-types?key=${key}&limit=100`);
  return body.items.map(({ version, status }) => ({ version, status })).sort((a, b) => a.version - b.version);
}

function editTaskType(key: string, from: string, to: string): void {
  const file = join(claims.dir, 'claims/task-types', `${key}.yaml`);
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
}

describe('plan and apply of the claims example against core serve', () => {
  beforeEach(async () => {
    core = await startCoreProcess();
    claims = copyClaims();
    planFile = join(claims.dir, 'plan.json');
  });
  afterEach(async () => {
    await core.stop();
    claims.remove();
  });

  it('first install: everything is added, the plan validates and holds no variable value; a second plan has no changes', async () => {
    const first = await plan();
    expect(first.stderr).not.toContain('rror');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^ {2}\+ Role\/claims-manager \(claims\) — new$/m);
    expect(first.stdout).toMatch(/^ {2}\+ Process\/claim: create$/m);
    expect(first.stdout).toMatch(/^ {2}\+ TaskType\/claim-review: create$/m);
    expect(first.stdout).toMatch(/^ {2}\+ KnowledgePack\/claims@1 \(claims\)/m);
    expect(first.stdout).toMatch(/^ {2}\+ NotificationRule\/claim-reply-approval/m);
    expect(first.stdout).not.toMatch(/^ {2}[~-] /m);
    expect(first.stdout).toMatch(/^Plan: \d+ to add, 0 to change, 0 to retire\.\ntotal changes: \d+$/m);
    expect(first.stdout).toContain(`apply it: package-sdk apply --plan ${planFile} --server ${core.url}`);

    const text = readFileSync(planFile, 'utf8');
    const document = JSON.parse(text);
    expect(validatePlan(document), JSON.stringify(validatePlan.errors)).toBe(true);
    expect(document.sections.map((s: { kind: string }) => s.kind)).toEqual(['catalog', 'core', 'knowledge', 'notification-rules', 'retire']);
    expect(document).toMatchObject({ server: core.url, installation: 'claims-example', install: 'packages.yaml', overwriteConsole: false, engines: { 'control-plane': '0.10.0' } });
    expect(text).not.toContain(HELPDESK_URL);
    expect(text).not.toContain('helpdesk.example.com');

    const applied = await approved();
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/applied plan sha256:[0-9a-f]{64} \(package-sdk\.plan\/v1\): \d+ changes written/);
    expect((await core.call('GET', '/api/v1/process-definitions/claim')).body).toMatchObject({ status: 'active' });
    expect((await core.call('GET', `/api/v1/workspaces/${WORKSPACE}/knowledge-packs`)).body).toMatchObject({ packs: ['default@1', 'claims@1'] });

    const second = await plan();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^no changes$/m);
    expect(second.stdout).not.toContain('total changes');
  });

  it('--json prints exactly the plan document that was saved', async () => {
    const result = await plan(['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(readFileSync(planFile, 'utf8')));
  });

  it('a changed task type is a new version and the old one is deprecated', async () => {
    await installed();
    editTaskType('claim-review', 'displayName: ', 'displayName: Checked ');
    const changed = await plan();
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^ {2}~ TaskType\/claim-review: update displayName \(new version, deprecates v1\)$/m);
    expect(changed.stdout).toMatch(/^Plan: 0 to add, 1 to change, 0 to retire\.$/m);
    expect((await approved()).code).toBe(0);
    expect(await taskTypeVersions('claim-review')).toEqual([{ version: 1, status: 'deprecated' }, { version: 2, status: 'active' }]);
    expect((await plan()).stdout).toMatch(/^no changes$/m);
  });

  it('a console edit is kept by default and overwritten with --overwrite-console', async () => {
    await installed();
    const edit = await core.call('POST', '/admin/console-edits', { kind: 'TaskType', key: 'claim-followup', path: 'displayName', value: 'Edited in the console' });
    expect(edit.status).toBe(200);

    const kept = await plan();
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('console edits: kept (to overwrite — plan --overwrite-console)\n  stay as in the console:\n  = TaskType/claim-followup (claims): displayName');
    const keeping = await approved();
    expect(keeping.code, keeping.stderr).toBe(0);
    const current = async () => {
      const { body } = await core.call<{ items: { id: string }[] }>('GET', '/api/v1/task-types?key=claim-followup&status=active&limit=100');
      return (await core.call<{ displayName: string }>('GET', `/api/v1/task-types/${body.items.at(-1)!.id}`)).body.displayName;
    };
    expect(await current()).toBe('Edited in the console');

    const overwrite = await plan(['--overwrite-console']);
    expect(overwrite.code, overwrite.stderr).toBe(0);
    expect(overwrite.stdout).toContain('console edits: overwritten (overwriteConsole)\n  will be overwritten:\n  ! TaskType/claim-followup (claims): displayName');
    expect(JSON.parse(readFileSync(planFile, 'utf8')).overwriteConsole).toBe(true);
    const overwritten = await approved();
    expect(overwritten.code, overwritten.stderr).toBe(0);
    expect(await current()).toBe('Follow up a reopened claim');
    expect((await plan()).stdout).toMatch(/^no changes$/m);
  });

  it('retires a process named in spec.retire (the local core runs no instances: 0 live)', async () => {
    await installed();
    const retiring = join(claims.dir, 'retire.yaml');
    writeFileSync(retiring, 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: claims-retired\nspec:\n  packages: []\n  retire:\n    Process: [claim]\n    WorkRule: [claim-reopened]\n');
    const result = await runCli(['plan', '--install', retiring, '--server', core.url, '--out', planFile], { cwd: claims.dir, env: claimsEnv(core) });
    expect(result.stderr).not.toContain('rror');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ {2}- WorkRule\/claim-reopened — rule → archived$/m);
    expect(result.stdout).toMatch(/^ {2}- Process\/claim — process → retired, no live instances$/m);
    expect(result.stdout).toMatch(/^Plan: 0 to add, 0 to change, 2 to retire\.$/m);
    const retire = JSON.parse(readFileSync(planFile, 'utf8')).sections.at(-1);
    expect(retire.items.find((item: { kind: string }) => item.kind === 'Process')).toMatchObject({ operation: 'retire', expected: { status: 'active' }, openInstances: 0 });
    expect((await approved()).code).toBe(0);
    expect((await core.call('GET', '/api/v1/process-definitions/claim')).body).toMatchObject({ status: 'retired' });
    const again = await runCli(['plan', '--install', retiring, '--server', core.url, '--out', planFile], { cwd: claims.dir, env: claimsEnv(core) });
    expect(again.stdout).toMatch(/^no changes$/m);
  });

  it('refuses an edited plan file, even one re-indented by hand', async () => {
    expect((await plan()).code).toBe(0);
    const document = JSON.parse(readFileSync(planFile, 'utf8'));
    document.overwriteConsole = true;
    writeFileSync(planFile, JSON.stringify(document, null, 2));
    const result = await approved();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the plan was edited after it was built (planHash does not match)');
    expect(result.stderr).toContain('plan_modified');
    expect((await core.call('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
  });

  it('refuses a stale plan before its first write', async () => {
    await installed();
    editTaskType('claim-review', 'displayName: ', 'displayName: Checked ');
    expect((await plan()).code).toBe(0);
    await core.call('POST', '/admin/console-edits', { kind: 'TaskType', key: 'claim-followup', path: 'description', value: 'moved' });
    const result = await approved();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('plan_stale');
    expect(result.stderr).toMatch(/core plan of package claims: sha256:[0-9a-f]{64} → sha256:[0-9a-f]{64}/);
    expect(await taskTypeVersions('claim-review')).toEqual([{ version: 1, status: 'active' }]);
  });

  it('refuses a plan whose variable values changed (variablesHash)', async () => {
    expect((await plan()).code).toBe(0);
    const result = await apply(['--plan-hash', planHashOf()], { HELPDESK_URL: 'https://other.example.com' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('installation variable values changed (variablesHash)');
    expect((await core.call('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
  });

  it('without a terminal, apply needs --plan-hash or --auto-approve', async () => {
    expect((await plan()).code).toBe(0);
    const unapproved = await apply();
    expect(unapproved.code).toBe(1);
    expect(unapproved.stderr).toContain('applying a plan requires confirmation by a human');
    const wrong = await apply(['--plan-hash', `sha256:${'0'.repeat(64)}`]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is not the hash of this plan');
    expect((await core.call('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
    const auto = await apply(['--auto-approve']);
    expect(auto.code, auto.stderr).toBe(0);
  });

  it('a missing variable names its description, and no plan is written', async () => {
    const result = await plan([], { HELPDESK_URL: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('variable HELPDESK_URL is not set — package claims: API of the helpdesk the observer polls');
    expect(existsSync(planFile)).toBe(false);
  });

  it('a workspace variable must name a workspace of the core', async () => {
    const result = await plan([], { CLAIMS_WORKSPACE_ID: '99999999-2222-4333-8444-555555555555' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('variable CLAIMS_WORKSPACE_ID of package claims: workspace 99999999-2222-4333-8444-555555555555 not found on the stand');
    expect(existsSync(planFile)).toBe(false);
  });

  it('an apply killed in the middle is completed by planning and applying again, nothing written twice', async () => {
    const proxy = await startCuttingProxy(core.url);
    try {
      const viaProxy = { NOTIFICATION_SERVICE_URL: proxy.url };
      expect((await plan([], viaProxy, proxy.url)).code).toBe(0);
      expect(proxy.writes).toEqual([]); // plan writes nothing
      const initial = JSON.parse(readFileSync(planFile, 'utf8')).sections[0].changes.length;
      const run = spawnCli(['apply', '--plan', planFile, '--plan-hash', planHashOf()], { cwd: claims.dir, env: claimsEnv(core, viaProxy) });
      proxy.cutAt(3, () => run.child.kill('SIGKILL'));
      const killed = await run.done;
      expect(killed.signal).toBe('SIGKILL');
      expect(proxy.writes).toHaveLength(2);

      const rest = await plan([], viaProxy, proxy.url);
      expect(rest.code, rest.stderr).toBe(0);
      const remaining = JSON.parse(readFileSync(planFile, 'utf8')).sections[0].changes.length;
      expect(remaining).toBe(initial - 2);
      expect((await apply(['--plan-hash', planHashOf()], viaProxy)).code).toBe(0);
      expect((await plan([], viaProxy, proxy.url)).stdout).toMatch(/^no changes$/m);
      const creates = proxy.writes.filter((write) => write === 'POST /api/v1/roles' || write === 'POST /api/v1/skills');
      expect(creates).toEqual(['POST /api/v1/roles', 'POST /api/v1/roles', 'POST /api/v1/skills', 'POST /api/v1/skills']);
      const roles = (await core.call<{ items: { slug: string }[] }>('GET', '/api/v1/roles?limit=100')).body.items.map((role) => role.slug).sort();
      expect(roles).toEqual(['claims-manager', 'claims-officer']);
    } finally {
      await proxy.close();
    }
  });
});

describe('plan against a core outside the packages\' engines', () => {
  let newer: CoreProcess;
  beforeAll(async () => {
    newer = await startCoreProcess({ version: '0.12.0' });
    claims = copyClaims();
    planFile = join(claims.dir, 'plan.json');
  });
  afterAll(async () => {
    await newer.stop();
    claims.remove();
  });

  it('refuses with engines_incompatible before any core plan, and writes no plan', async () => {
    const result = await runCli(['plan', '--install', claims.install, '--server', newer.url, '--out', planFile], { cwd: claims.dir, env: claimsEnv(newer) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/engines_incompatible: package claims is compatible with control-plane >=0\.10,<0\.11, but the stand has control-plane 0\.12\.0/);
    expect(existsSync(planFile)).toBe(false);
  });
});

describe('the bundled example with --server local', () => {
  const cwd = scratchDir('plan-local-');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('plans, applies with --auto-approve, and plans again with no changes', async () => {
    const install = join(ROOT, 'fixtures/example/packages.yaml');
    const env = join(ROOT, 'fixtures/example/example.env');
    const out = join(cwd, 'plan.json');
    const first = await runCli(['plan', '--install', install, '--server', 'local', '--env', env, '--out', out], { cwd });
    expect(first.stderr).not.toContain('rror');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`apply it: package-sdk apply --plan ${out} --server local --env ${env}`);
    expect(JSON.parse(readFileSync(out, 'utf8')).server).toBe('http://localhost/local');
    const applied = await runCli(['apply', '--plan', out, '--server', 'local', '--env', env, '--auto-approve'], { cwd });
    expect(applied.stderr).not.toContain('rror');
    expect(applied.code, applied.stderr).toBe(0);
    const again = await runCli(['plan', '--install', install, '--server', 'local', '--env', env, '--out', out], { cwd });
    expect(again.stdout).toMatch(/^no changes$/m);
  });
});
