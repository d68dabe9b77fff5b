/**
 * Versions as the reference types them — a ConnectionType's `version` is an integer, a Skill's a string — in
 * the plan, in the requests and in the local core's answers, so that a plan is the same whichever tool built
 * it; and a stale plan names the field that differs with both values.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusalOf } from '../../src/cli/refusal.js';
import { prettyJson } from '../../src/json/canonical.js';
import { parseJson } from '../../src/load/json.js';
import { apply } from '../../src/plan/apply.js';
import { planHashOf, type Change, type PlanDocument } from '../../src/plan/document.js';
import { plan } from '../../src/plan/plan.js';
import type { TestCore } from '../core/support.js';
import { copyInstallation, EXAMPLE, type ScratchInstallation, startSubjectCore, subjectEnv } from './support.js';

describe('versions of versioned kinds in plan, requests and the core', () => {
  let core: TestCore;
  let scratch: ScratchInstallation;
  let planFile: string;
  const env = () => subjectEnv(EXAMPLE, core);
  const catalogChange = (document: PlanDocument, ref: string): Change | undefined => {
    const catalog = document.sections[0]!;
    return catalog.kind === 'catalog' ? catalog.changes.find((change) => `${change.kind}/${change.key}` === ref) : undefined;
  };

  beforeEach(async () => {
    core = await startSubjectCore(EXAMPLE);
    scratch = copyInstallation(EXAMPLE);
    planFile = join(scratch.dir, 'plan.json');
  });
  afterEach(async () => {
    await core.dispose();
    scratch.remove();
  });

  it('a ConnectionType version is an integer in the plan, in the create request and in the core\'s answer; the plan applies', async () => {
    const { document } = await plan({ install: scratch.install, server: core.url, out: planFile, processEnv: env() });
    expect(catalogChange(document, 'ConnectionType/fleet-telematics')).toMatchObject({ operation: 'create', version: 1 });
    expect(readFileSync(planFile, 'utf8')).toMatch(/"kind": "ConnectionType",\n\s+"key": "fleet-telematics",[^}]*"version": 1,/);
    await apply({ plan: planFile, processEnv: env(), planHash: document.planHash });
    // The core's create request requires an integer: the row exists, and answers with an integer.
    const { body } = await core.call<{ items: { version: unknown }[] }>('GET', '/api/v1/connection-types?key=fleet-telematics&limit=100');
    expect(body.items.map((row) => row.version)).toEqual([1]);
    const refused = await core.call('POST', '/api/v1/connection-types', { body: { key: 'other', version: '1', spec: {} } });
    expect(refused.status).toBe(400);
  });

  it('a plan whose ConnectionType version is text (as an older planner wrote it) is stale, and says which field differs and how', async () => {
    await plan({ install: scratch.install, server: core.url, out: planFile, processEnv: env() });
    const text = readFileSync(planFile, 'utf8');
    const edited = JSON.parse(text) as PlanDocument;
    catalogChange(edited, 'ConnectionType/fleet-telematics')!.version = '1';
    const floats = parseJson(text, planFile).document!.floats;
    edited.planHash = planHashOf(edited, floats);
    writeFileSync(planFile, prettyJson(edited, floats));
    let refused: ReturnType<typeof refusalOf>;
    try {
      await apply({ plan: planFile, processEnv: env(), planHash: edited.planHash });
    } catch (error) {
      refused = refusalOf(error);
      if (!refused) throw error;
    }
    expect(refused!.code).toBe('plan_stale');
    expect(refused!.message).toBe('the plan is stale — section catalog: ConnectionType/fleet-telematics create: version is "1" in the plan, 1 on the core now');
    expect((await core.call<{ items: unknown[] }>('GET', '/api/v1/roles?limit=100')).body.items).toEqual([]);
  });
});
