/**
 * plan with the check's index, as the CLI runs it (each run opens the index anew): a plan of an installation
 * that did not change since a plan stored the check's verdict takes that verdict instead of checking again —
 * and writes, byte for byte, the plan file a plan without the index writes. Every edit is seen: a changed
 * value is planned, a comment changes the content hash, a broken file is refused. Against a real local core
 * over HTTP; the clock is held still so that two plans of the same state are the same bytes (`createdAt`).
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { apply } from '../../src/plan/apply.js';
import { plan, type PlanResult } from '../../src/plan/plan.js';
import { loadInstallation } from '../../src/plan/sources.js';
import { paintFor } from '../../src/report/paint.js';
import { renderPlan } from '../../src/report/plan.js';
import { tempDir, type TestCore } from '../core/support.js';
import { copyInstallation, EXAMPLE, type ScratchInstallation, startSubjectCore, subjectEnv } from './support.js';

const TASK_TYPE = 'task-types/site-inspection.yaml';

let core: TestCore;
let scratch: ScratchInstallation;
let cacheDir: string;
let planFile: string;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-02T03:04:05Z') });
  core = await startSubjectCore(EXAMPLE);
  scratch = copyInstallation(EXAMPLE);
  cacheDir = tempDir('plan-index-');
  planFile = join(scratch.dir, 'plan.json');
});

afterAll(async () => {
  useParseCache(undefined);
  vi.useRealTimers();
  await core.dispose();
  scratch.remove();
  rmSync(cacheDir, { recursive: true, force: true });
});

/** Runs `work` with the workspace index over `cacheDir` opened anew (a CLI run), or with no index (a library call). */
async function withIndex<T>(index: boolean, work: (cache: ParseCache | undefined) => Promise<T>): Promise<T> {
  const cache = index ? new ParseCache(cacheDir, scratch.dir) : undefined;
  useParseCache(cache);
  try {
    return await work(cache);
  } finally {
    useParseCache(undefined);
  }
}

/** The plan file's bytes and what `plan` prints of it. */
async function planned(index: boolean): Promise<{ bytes: string; shown: string; result: PlanResult }> {
  const result = await withIndex(index, () => plan({ install: scratch.install, server: core.url, out: planFile, processEnv: subjectEnv(EXAMPLE, core) }));
  return { bytes: readFileSync(planFile, 'utf8'), shown: renderPlan(result.document, paintFor({ isTTY: false }), result.warnings), result };
}

/** Whether the check's verdict on the installation would come from the index now. */
const verdictReused = (): Promise<boolean> => withIndex(true, async () => (await loadInstallation(scratch.install)).verdictReused);

describe('plan with the check index', () => {
  it('takes the stored verdict when nothing changed, and writes the plan a plan without the index writes', async () => {
    expect(await verdictReused()).toBe(false);
    await planned(true);
    await apply({ plan: planFile, processEnv: subjectEnv(EXAMPLE, core), autoApprove: true });
    expect(await verdictReused()).toBe(true);
    const warm = await planned(true);
    const cold = await planned(false);
    expect(warm.shown).toContain('no changes');
    expect(warm.bytes).toBe(cold.bytes);
    expect(warm.shown).toBe(cold.shown);
  });

  it('opens, when nothing changed, only the documents whose values it reads', async () => {
    const opened = await withIndex(true, async (cache) => {
      await plan({ install: scratch.install, server: core.url, out: planFile, processEnv: subjectEnv(EXAMPLE, core) });
      return cache!.unpacked().map((file) => relative(scratch.dir, resolve(file)));
    });
    // Read: the installation and the manifest (envelopes, variables), the data schema the process names, the
    // objects whose text writes a `${NAME}` (the names they use), and the objects of the installer's sections —
    // the catalog's kinds, the knowledge packs, the notification rules — whose specs the plan compares with
    // the core's. Not read: the task types, views, components, calendars, dictionaries and the agents that
    // write no variable; the core gets every file's text as it stands.
    const pkg = 'packages/field-maintenance';
    expect(opened).toEqual([
      'packages.yaml', `${pkg}/package.yaml`, `${pkg}/schemas/work-order.yaml`,
      `${pkg}/agents/maintenance-skills.yaml`, `${pkg}/agents/telematics-observer.yaml`, `${pkg}/processes/work-order.yaml`,
      `${pkg}/rules/service-interval-due.yaml`, `${pkg}/skills/parts.availability.yaml`,
      `${pkg}/workspace-types/depot.yaml`, `${pkg}/workspace-types/service-region.yaml`, `${pkg}/capabilities/fault-diagnosis.yaml`,
      `${pkg}/connection-types/fleet-telematics.yaml`, `${pkg}/roles/field-technician.yaml`, `${pkg}/roles/maintenance-planner.yaml`,
      `${pkg}/roles/stores-manager.yaml`, `${pkg}/skills/fault.diagnose.yaml`, `${pkg}/skills/parts.order.yaml`,
      `${pkg}/artifact-types/inspection-report.yaml`, `${pkg}/project-templates/site-overhaul.yaml`,
      `${pkg}/knowledge-packs/equipment.yaml`, `${pkg}/notification-rules/parts-approval-requested.yaml`,
    ]);
  });

  it('sees a changed value: the change is planned, as without the index, and the new verdict is stored', async () => {
    const file = join(scratch.package, TASK_TYPE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('displayName: Inspect a machine on site', 'displayName: Inspect a machine where it stands'));
    expect(await verdictReused()).toBe(false);
    const warm = await planned(true);
    const cold = await planned(false);
    expect(warm.shown).toMatch(/~ TaskType\/site-inspection: update \/spec\/displayName/);
    expect(warm.shown).toContain('→ "Inspect a machine where it stands"');
    expect(warm.bytes).toBe(cold.bytes);
    expect(await verdictReused()).toBe(true);
  });

  it('takes a comment as a change of the content hash: lockHash follows the bytes', async () => {
    const before = JSON.parse((await planned(true)).bytes).lockHash as string;
    appendFileSync(join(scratch.package, TASK_TYPE), '# reviewed by the planners\n');
    const warm = await planned(true);
    const cold = await planned(false);
    expect(JSON.parse(warm.bytes).lockHash).not.toBe(before);
    expect(warm.bytes).toBe(cold.bytes);
  });

  it('refuses an edit the check refuses, though a verdict was stored before it', async () => {
    await planned(true);
    expect(await verdictReused()).toBe(true);
    const file = join(scratch.package, TASK_TYPE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('kind: TaskType', 'kind: TaskTyp'));
    await expect(planned(true)).rejects.toMatchObject({ code: 'packages_invalid' });
    await expect(planned(false)).rejects.toMatchObject({ code: 'packages_invalid' });
  });
});
