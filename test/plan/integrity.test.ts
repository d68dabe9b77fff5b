/**
 * What a reviewer approves is what apply writes. A plan file sealed by `planHash` can be edited and sealed
 * again by anyone, so apply rebuilds the whole plan from the installation and the core, compares it field by
 * field with the file, and shows, approves and writes only the rebuilt plan: an edit is refused, or has no
 * effect on what is shown and written. The bundled example against a real local core over HTTP.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalOf } from '../../src/cli/refusal.js';
import { prettyJson } from '../../src/json/canonical.js';
import { parseJson } from '../../src/load/json.js';
import { apply } from '../../src/plan/apply.js';
import { planHashOf, type PlanDocument } from '../../src/plan/document.js';
import { plan } from '../../src/plan/plan.js';
import type { TestCore } from '../core/support.js';
import { copyInstallation, EXAMPLE, type ScratchInstallation, startSubjectCore, subjectEnv } from './support.js';

interface Edit {
  name: string;
  edit(document: Record<string, unknown>): void;
}

/** Every leaf of the document changed (a string gets a suffix, a number +1, a boolean flips, null becomes a string), and every array shortened by its last item. */
function editsOf(value: unknown, path: (string | number)[] = []): Edit[] {
  const at = (document: Record<string, unknown>): { parent: any; key: string | number } => {
    let parent: any = document;
    for (const part of path.slice(0, -1)) parent = parent[part];
    return { parent, key: path.at(-1)! };
  };
  const name = `/${path.join('/')}`;
  if (Array.isArray(value)) {
    const shortened: Edit[] = value.length === 0 ? [] : [{ name: `${name} without its last item`, edit: (document) => { const { parent, key } = at(document); parent[key].pop(); } }];
    return [...shortened, ...value.flatMap((item, index) => editsOf(item, [...path, index]))];
  }
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => editsOf(item, [...path, key]));
  if (path.at(-1) === 'planHash' && path.length === 1) return [];
  return [{
    name,
    edit: (document) => {
      const { parent, key } = at(document);
      const old = parent[key];
      parent[key] = typeof old === 'string' ? `${old}x` : typeof old === 'number' ? old + 1 : typeof old === 'boolean' ? !old : 'x';
    },
  }];
}

/**
 * The plan as apply shows it for approval and writes it, without what may differ between two builds of the
 * same plan (the times) and the one parameter of a core plan that only shapes its preview (how many live
 * instances the core replays; apply does not send it).
 */
function approvable(document: PlanDocument): unknown {
  return JSON.parse(JSON.stringify({ ...document, createdAt: undefined, planHash: undefined, sections: document.sections.map((section) =>
    section.kind === 'core' ? { ...section, replayLimit: undefined, plan: { ...section.plan, createdAt: undefined } } : section) }));
}

describe('apply shows and writes exactly what it verified', () => {
  let core: TestCore;
  let scratch: ScratchInstallation;
  let planFile: string;
  let original: string;
  const env = () => subjectEnv(EXAMPLE, core);

  /** Apply of the file as it is now, stopped at the approval: the plan it would write, or its refusal. */
  async function shownOrRefused(): Promise<{ shown?: PlanDocument; refused?: string }> {
    let shown: PlanDocument | undefined;
    try {
      await apply({ plan: planFile, processEnv: env(), confirm: async (document) => ((shown = document), false) });
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      if (refused.code !== 'apply_not_confirmed') return { refused: refused.code };
    }
    return { shown: shown! };
  }

  beforeAll(async () => {
    core = await startSubjectCore(EXAMPLE);
    scratch = copyInstallation(EXAMPLE);
    planFile = join(scratch.dir, 'plan.json');
    await plan({ install: scratch.install, server: core.url, out: planFile, processEnv: env() });
    original = readFileSync(planFile, 'utf8');
  });
  afterAll(async () => {
    await core.dispose();
    scratch.remove();
  });

  it('every field of a plan edited and sealed again is refused, or changes nothing that is shown or written', async () => {
    const unedited = await shownOrRefused();
    expect(unedited.refused).toBeUndefined();
    const { document } = parseJson(original, planFile);
    const floats = document!.floats;
    // Each field once: the first item of a list stands for the others of its shape, and the first leaf of a
    // member of a core plan's change for the rest of that member (the core's answer is compared whole).
    const shapes = new Set<string>();
    const shapeOf = (name: string): string => name.replace(/\/\d+/g, '/*').split('/').slice(0, 7).join('/');
    const edits = editsOf(document!.value).filter(({ name }) => !shapes.has(shapeOf(name)) && Boolean(shapes.add(shapeOf(name))));
    expect(edits.length).toBeGreaterThan(40);
    const accepted: string[] = [];
    for (const { name, edit } of edits) {
      const edited = JSON.parse(original) as Record<string, unknown>;
      edit(edited);
      edited.planHash = planHashOf(edited, floats);
      writeFileSync(planFile, prettyJson(edited, floats));
      const outcome = await shownOrRefused();
      if (outcome.shown) {
        expect(approvable(outcome.shown), `${name} was accepted and changed the plan shown`).toEqual(approvable(unedited.shown!));
        accepted.push(name);
      } else {
        expect(['plan_modified', 'plan_stale', 'plan_invalid', 'server_mismatch', 'packages_invalid', 'engines_incompatible'], name).toContain(outcome.refused);
      }
    }
    // What the file alone may say, and what the rebuild takes from it without consequence.
    expect(accepted.every((name) => /^\/createdAt$|\/detail$|^\/sections\/\d+\/(plan\/createdAt|replayLimit)$/.test(name)), accepted.join(', ')).toBe(true);
    writeFileSync(planFile, original);
    expect((await core.call<{ items: unknown[] }>('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
  }, 600_000);

  it('dropping the process and the agents from the core plan is refused as an edit, not applied', async () => {
    const edited = JSON.parse(original) as PlanDocument & Record<string, unknown>;
    const coreSection = edited.sections.find((section) => section.kind === 'core')!;
    if (coreSection.kind !== 'core') throw new Error('no core section');
    coreSection.plan.changes = (coreSection.plan.changes ?? []).filter((change) => change.kind !== 'Process' && change.kind !== 'Agent');
    edited.planHash = planHashOf(edited, parseJson(original, planFile).document!.floats);
    writeFileSync(planFile, JSON.stringify(edited, null, 2));
    expect(await shownOrRefused()).toEqual({ refused: 'plan_modified' });
    writeFileSync(planFile, original);
  });

  it('an applied plan applied again is stale, with exit 1', async () => {
    writeFileSync(planFile, original);
    const planHash = (JSON.parse(original) as { planHash: string }).planHash;
    await apply({ plan: planFile, processEnv: env(), planHash });
    let refused: ReturnType<typeof refusalOf>;
    try {
      await apply({ plan: planFile, processEnv: env(), planHash });
    } catch (error) {
      refused = refusalOf(error);
      if (!refused) throw error;
    }
    expect(refused!).toMatchObject({ code: 'plan_stale', exitCode: 1 });
    expect(refused!.message).toMatch(/^the plan is stale — section catalog: in the plan \S+ create, on the core now —$/);
  });
});
