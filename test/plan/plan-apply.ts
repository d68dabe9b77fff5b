/**
 * Plan and apply of a whole installation as a CD pipeline runs them — build a plan file, review it, apply it —
 * through the library functions the `plan` and `apply` commands call, against a real local core over HTTP
 * in the test process. What the commands print is rendered by the same report functions they use.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apply, type ApplyResult } from '../../src/plan/apply.js';
import { plan, type PlanResult } from '../../src/plan/plan.js';
import { refusalOf } from '../../src/cli/refusal.js';
import { paintFor } from '../../src/report/paint.js';
import { renderApplied, renderPlan } from '../../src/report/plan.js';
import { renderRefusal } from '../../src/report/refusal.js';
import type { TestCore } from '../core/support.js';
import { ROOT } from '../support/cli.js';
import { copyInstallation, type ScratchInstallation, spawnCli, startCuttingProxy, startSubjectCore, type Subject, subjectEnv } from './support.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const validatePlan = addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(
  JSON.parse(readFileSync(join(ROOT, 'schema/v1/plan.schema.json'), 'utf8')) as object);

const plain = paintFor({ isTTY: false });

/** What `plan` prints of a plan. */
const shown = (result: PlanResult): string => renderPlan(result.document, plain, result.warnings);

/** What `plan` or `apply` prints on stderr when it refuses; fails when `work` succeeds or fails otherwise. */
async function refusal(work: Promise<unknown>): Promise<{ text: string; exitCode: number }> {
  try {
    await work;
  } catch (error) {
    const refused = refusalOf(error);
    if (!refused) throw error;
    return { text: renderRefusal(refused, plain), exitCode: refused.exitCode };
  }
  throw new Error('expected a refusal');
}

/** The in-process cases of plan and apply on `subject`. */
export function describePlanAndApply(subject: Subject): void {
  let core: TestCore;
  let scratch: ScratchInstallation;
  let planFile: string;

  const env = (overrides: Record<string, string | undefined> = {}) => subjectEnv(subject, core, overrides);
  const planNow = (options: { install?: string; overwriteConsole?: boolean; env?: Record<string, string | undefined> } = {}) =>
    plan({ install: options.install ?? scratch.install, server: core.url, out: planFile, processEnv: env(options.env), overwriteConsole: options.overwriteConsole ?? false });
  const planHashOf = () => (JSON.parse(readFileSync(planFile, 'utf8')) as { planHash: string }).planHash;
  const applyNow = (options: { planHash?: string; autoApprove?: boolean; env?: Record<string, string | undefined> } = {}): Promise<ApplyResult> =>
    apply({ plan: planFile, processEnv: env(options.env), ...(options.autoApprove ? { autoApprove: true } : { planHash: options.planHash ?? planHashOf() }) });

  async function installed(): Promise<void> {
    await planNow();
    await applyNow();
  }

  async function taskTypeVersions(key: string): Promise<{ version: number; status: string }[]> {
    const { body } = await core.call<{ items: { version: number; status: string }[] }>('GET', `/api/v1/task-types?key=${key}&limit=100`);
    return body.items.map(({ version, status }) => ({ version, status })).sort((a, b) => a.version - b.version);
  }

  function editTaskType(key: string, from: string, to: string): void {
    const file = join(scratch.package, 'task-types', `${key}.yaml`);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(from);
    writeFileSync(file, text.replace(from, to));
  }

  const roles = async () => (await core.call<{ items: unknown[] }>('GET', '/api/v1/roles?limit=100')).body.items;

  describe(`plan and apply of ${subject.installation} against the local core`, () => {
    beforeEach(async () => {
      core = await startSubjectCore(subject);
      scratch = copyInstallation(subject);
      planFile = join(scratch.dir, 'plan.json');
    });
    afterEach(async () => {
      await core.dispose();
      scratch.remove();
    });

    it('first install: everything is added, the plan validates and holds no variable value outside the core\'s answer; a second plan has no changes', async () => {
      const first = await planNow();
      const text = shown(first);
      for (const line of subject.firstPlan) expect(text).toMatch(line);
      expect(text).not.toMatch(/^ {2}[~-] /m);
      expect(text).toMatch(/^Plan: \d+ to add, 0 to change, 0 to retire\.\ntotal changes: \d+$/m);

      const saved = readFileSync(planFile, 'utf8');
      const document = JSON.parse(saved);
      expect(document).toEqual(JSON.parse(JSON.stringify(first.document)));
      expect(validatePlan(document), JSON.stringify(validatePlan.errors)).toBe(true);
      expect(document.sections.map((s: { kind: string }) => s.kind)).toEqual(['catalog', 'core', 'knowledge', 'notification-rules', 'retire']);
      expect(document).toMatchObject({ server: core.url, installation: subject.installation, install: subject.install, overwriteConsole: false, engines: { 'control-plane': '0.10.0' } });
      // The core's answer is kept verbatim, and a new object's fields are its whole form, substituted values
      // included (as the real core answers); nothing else of the plan holds a value.
      const besidesCore = JSON.stringify({ ...document, sections: document.sections.map((s: { kind: string }) => (s.kind === 'core' ? { ...s, plan: undefined } : s)) });
      for (const value of Object.values(subject.values)) {
        expect(besidesCore).not.toContain(value);
        expect(besidesCore).not.toContain(new URL(value).host);
      }

      const applied = await applyNow();
      expect(renderApplied(applied)).toMatch(/applied plan sha256:[0-9a-f]{64} \(package-sdk\.plan\/v1\): \d+ changes written/);
      expect((await core.call('GET', `/api/v1/process-definitions/${subject.process}`)).body).toMatchObject({ status: 'active' });
      expect((await core.call('GET', `/api/v1/workspaces/${subject.workspace.id}/knowledge-packs`)).body).toMatchObject({ packs: subject.knowledgePacks });

      const second = shown(await planNow());
      expect(second).toMatch(/^no changes$/m);
      expect(second).not.toContain('total changes');
    });

    it('a changed task type is a new version and the old one is deprecated', async () => {
      await installed();
      editTaskType(subject.changedTaskType, 'displayName: ', 'displayName: Checked ');
      const changed = shown(await planNow());
      expect(changed).toMatch(new RegExp(`^ {2}~ TaskType/${subject.changedTaskType}: update /spec/displayName \\(new version, deprecates v1\\)\n {6}~ /spec/displayName: "([^"]+)" → "Checked \\1"$`, 'm'));
      expect(changed).toMatch(/^Plan: 0 to add, 1 to change, 0 to retire\.$/m);
      await applyNow();
      expect(await taskTypeVersions(subject.changedTaskType)).toEqual([{ version: 1, status: 'deprecated' }, { version: 2, status: 'active' }]);
      expect(shown(await planNow())).toMatch(/^no changes$/m);
    });

    it('a console edit is kept by default and overwritten with overwriteConsole', async () => {
      await installed();
      const { key, displayName } = subject.consoleTaskType;
      const edit = await core.call('POST', '/admin/console-edits', { body: { kind: 'TaskType', key, path: 'displayName', value: 'Edited in the console' } });
      expect(edit.status).toBe(200);

      const kept = shown(await planNow());
      expect(kept).toContain(`console edits: kept (to overwrite — plan --overwrite-console)\n  stay as in the console:\n  = TaskType/${key} (${subject.package.key}): /spec/displayName`);
      await applyNow();
      const current = async () => {
        const { body } = await core.call<{ items: { id: string }[] }>('GET', `/api/v1/task-types?key=${key}&status=active&limit=100`);
        return (await core.call<{ displayName: string }>('GET', `/api/v1/task-types/${body.items.at(-1)!.id}`)).body.displayName;
      };
      expect(await current()).toBe('Edited in the console');

      const overwrite = shown(await planNow({ overwriteConsole: true }));
      expect(overwrite).toContain(`console edits: overwritten (overwriteConsole)\n  will be overwritten:\n  ! TaskType/${key} (${subject.package.key}): /spec/displayName`);
      expect(JSON.parse(readFileSync(planFile, 'utf8')).overwriteConsole).toBe(true);
      await applyNow();
      expect(await current()).toBe(displayName);
      expect(shown(await planNow())).toMatch(/^no changes$/m);
    });

    it('retires a process and a work rule named in spec.retire (the local core runs no instances: 0 live)', async () => {
      await installed();
      const retiring = join(scratch.dir, 'retire.yaml');
      writeFileSync(retiring, `apiVersion: taimen.ai/v1\nkind: Installation\nkey: retired\nspec:\n  packages: []\n  retire:\n    Process: [${subject.process}]\n    WorkRule: [${subject.workRule}]\n`);
      const result = shown(await planNow({ install: retiring }));
      expect(result).toMatch(new RegExp(`^ {2}- WorkRule/${subject.workRule} — rule → archived$`, 'm'));
      expect(result).toMatch(new RegExp(`^ {2}- Process/${subject.process} — process → retired, no live instances$`, 'm'));
      expect(result).toMatch(/^Plan: 0 to add, 0 to change, 2 to retire\.$/m);
      const retire = JSON.parse(readFileSync(planFile, 'utf8')).sections.at(-1);
      expect(retire.items.find((item: { kind: string }) => item.kind === 'Process')).toMatchObject({ operation: 'retire', expected: { status: 'active' }, openInstances: 0 });
      await applyNow();
      expect((await core.call('GET', `/api/v1/process-definitions/${subject.process}`)).body).toMatchObject({ status: 'retired' });
      expect(shown(await planNow({ install: retiring }))).toMatch(/^no changes$/m);
    });

    it('refuses an edited plan file, even one re-indented by hand', async () => {
      await planNow();
      const document = JSON.parse(readFileSync(planFile, 'utf8'));
      document.overwriteConsole = true;
      writeFileSync(planFile, JSON.stringify(document, null, 2));
      const refused = await refusal(applyNow({ planHash: document.planHash }));
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain('the plan was edited after it was built (planHash does not match)');
      expect(refused.text).toContain('plan_modified');
      expect(await roles()).toEqual([]);
    });

    it('refuses a stale plan before its first write', async () => {
      await installed();
      editTaskType(subject.changedTaskType, 'displayName: ', 'displayName: Checked ');
      await planNow();
      await core.call('POST', '/admin/console-edits', { body: { kind: 'TaskType', key: subject.consoleTaskType.key, path: 'description', value: 'moved' } });
      const refused = await refusal(applyNow());
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain('plan_stale');
      expect(refused.text).toMatch(new RegExp(`core plan of package ${subject.package.key}: sha256:[0-9a-f]{64} → sha256:[0-9a-f]{64}`));
      expect(await taskTypeVersions(subject.changedTaskType)).toEqual([{ version: 1, status: 'active' }]);
    });

    it('refuses a plan whose variable values changed (variablesHash)', async () => {
      await planNow();
      const [variable] = Object.keys(subject.values);
      const refused = await refusal(applyNow({ env: { [variable!]: 'https://other.example.com' } }));
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain('installation variable values changed (variablesHash)');
      expect(await roles()).toEqual([]);
    });

    it('without a terminal, apply needs the reviewed planHash or autoApprove', async () => {
      await planNow();
      const unapproved = await refusal(apply({ plan: planFile, processEnv: env() }));
      expect(unapproved.exitCode).toBe(1);
      expect(unapproved.text).toContain('applying a plan requires confirmation by a human');
      const wrong = await refusal(applyNow({ planHash: `sha256:${'0'.repeat(64)}` }));
      expect(wrong.exitCode).toBe(1);
      expect(wrong.text).toContain('is not the hash of this plan');
      expect(await roles()).toEqual([]);
      expect((await applyNow({ autoApprove: true })).applied.length).toBeGreaterThan(0);
    });

    it('a missing variable names its description, and no plan is written', async () => {
      const refused = await refusal(planNow({ env: { [subject.missing.variable]: undefined } }));
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain(`variable ${subject.missing.variable} is not set — package ${subject.package.key}: ${subject.missing.description}`);
      expect(existsSync(planFile)).toBe(false);
    });

    it('a workspace variable must name a workspace of the core', async () => {
      const unknown = '99999999-2222-4333-8444-555555555555';
      const refused = await refusal(planNow({ env: { [subject.workspace.variable]: unknown } }));
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain(`variable ${subject.workspace.variable} of package ${subject.package.key}: workspace ${unknown} not found on the core`);
      expect(existsSync(planFile)).toBe(false);
    });
  });

  describe(`plan of ${subject.installation} against a core outside the packages' engines`, () => {
    beforeAll(async () => {
      core = await startSubjectCore(subject, { version: '0.12.0' });
      scratch = copyInstallation(subject);
      planFile = join(scratch.dir, 'plan.json');
    });
    afterAll(async () => {
      await core.dispose();
      scratch.remove();
    });

    it('refuses with engines_incompatible before any core plan, and writes no plan', async () => {
      const refused = await refusal(planNow());
      expect(refused.exitCode).toBe(1);
      expect(refused.text).toContain(`engines_incompatible: package ${subject.package.key} is compatible with control-plane ${subject.package.engines}, but the core has control-plane 0.12.0`);
      expect(existsSync(planFile)).toBe(false);
    });
  });
}

/**
 * `apply` killed (SIGKILL) at its third write — the built CLI in a child process, since only a process can be
 * killed — is completed by planning and applying again, with nothing written twice.
 */
export function describeKilledApply(subject: Subject): void {
  describe(`an apply of ${subject.installation} killed in the middle`, () => {
    let core: TestCore;
    let scratch: ScratchInstallation;
    beforeEach(async () => {
      core = await startSubjectCore(subject);
      scratch = copyInstallation(subject);
    });
    afterEach(async () => {
      await core.dispose();
      scratch.remove();
    });

    it('is completed by planning and applying again, nothing written twice', async () => {
      const proxy = await startCuttingProxy(core.url);
      try {
        const planFile = join(scratch.dir, 'plan.json');
        const processEnv = subjectEnv(subject, core, { NOTIFICATION_SERVICE_URL: proxy.url });
        const planNow = () => plan({ install: scratch.install, server: proxy.url, out: planFile, processEnv });
        const initial = (await planNow()).document.sections[0] as { changes: unknown[] };
        expect(proxy.writes).toEqual([]); // plan writes nothing
        const run = spawnCli(['apply', '--plan', planFile, '--plan-hash', JSON.parse(readFileSync(planFile, 'utf8')).planHash], { cwd: scratch.dir, env: processEnv });
        proxy.cutAt(3, () => run.child.kill('SIGKILL'));
        const killed = await run.done;
        expect(killed.signal).toBe('SIGKILL');
        expect(proxy.writes).toHaveLength(2);

        const rest = await planNow();
        expect((rest.document.sections[0] as { changes: unknown[] }).changes).toHaveLength(initial.changes.length - 2);
        await apply({ plan: planFile, processEnv, planHash: rest.document.planHash });
        expect(shown(await planNow())).toMatch(/^no changes$/m);
        const routes = new Set(subject.killed.creates);
        expect(proxy.writes.filter((write) => routes.has(write))).toEqual(subject.killed.creates);
        const slugs = (await core.call<{ items: { slug: string }[] }>('GET', '/api/v1/roles?limit=100')).body.items.map((role) => role.slug).sort();
        expect(slugs).toEqual(subject.killed.roles);
      } finally {
        await proxy.close();
      }
    });
  });
}
