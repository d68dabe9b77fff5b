import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestsOnServer } from '../../src/sandbox/remote.js';
import type { ScenarioRun } from '../../src/server/route.js';
import { startTestCore, type TestCore } from '../core/support.js';
import { FIXTURES } from '../support/overlay.js';

/**
 * `test --server` sends a package as `plan` sends it (compat-core-packages §10.1): no KnowledgePack file, which
 * the core would refuse as unknown_kind, and `${VAR}` put in from the defaults and the environment — a name
 * without a value left as written, as the core leaves it. A local core with a recording engine shows what
 * arrives.
 */
const EXAMPLE = join(FIXTURES, 'example/packages/field-maintenance');
const VALUES = { MAINTENANCE_WORKSPACE_ID: '5b0f6c1e-2a4d-4e8b-9c3f-7d1a2b3c4d5e', FLEET_API_URL: 'https://fleet.example.org', STORES_API_URL: 'https://stores.example.org' };

let core: TestCore;
const runs: ScenarioRun[] = [];

beforeAll(async () => {
  core = await startTestCore({
    packageTester: async (run) => {
      runs.push(run);
      return { tests: run.tests.map((file) => ({ name: file, file, subject: 'process', target: 'x', status: 'passed', steps: 1 })), coverage: [], ruleCoverage: [], taskTypeCoverage: [] };
    },
  });
});
afterAll(() => core.dispose());

const send = (env: Record<string, string>, test?: string) =>
  runTestsOnServer({ paths: [EXAMPLE], server: core.url, env: { CP_TOKEN: core.token, ...env }, ...(test ? { test } : {}) });

describe('test --server', () => {
  it('sends the files plan sends, and the tests the targets select', async () => {
    runs.length = 0;
    const report = await send(VALUES);
    expect(report).toMatchObject({ ok: true, passed: 6, failed: 0, errors: 0, problems: [] });
    const [run] = runs;
    expect(run!.files.map((file) => file.path)).not.toContain('knowledge-packs/equipment.yaml');
    expect(run!.files.some((file) => file.path === 'README.md' || file.path.startsWith('.'))).toBe(false);
    expect(run!.files.filter((file) => file.content.includes('${'))).toEqual([]);
    expect(run!.files.find((file) => file.path === 'agents/telematics-observer.yaml')!.content).toContain('baseUrl: https://fleet.example.org');
    expect(run!.tests).toEqual([
      'tests/parts-request-approved.test.yaml', 'tests/parts-request-rejected.test.yaml', 'tests/service-interval-due.test.yaml', 'tests/service-interval-raised.test.yaml',
      'tests/work-order-parts-rejected.test.yaml', 'tests/work-order-repaired.test.yaml',
    ]);
  });

  it('leaves a variable without a value as written, and reports what the core refuses', async () => {
    runs.length = 0;
    const { FLEET_API_URL: _unset, ...partly } = VALUES;
    const run = await send(partly, 'parts-request-approved');
    expect(runs[0]!.files.find((file) => file.path === 'agents/telematics-observer.yaml')!.content).toContain('baseUrl: ${FLEET_API_URL}');
    expect(runs[0]!.tests).toEqual(['tests/parts-request-approved.test.yaml']);
    expect(run.ok).toBe(true);

    const { MAINTENANCE_WORKSPACE_ID: _none, ...noWorkspace } = VALUES;
    const refused = await send(noWorkspace);
    expect(refused.ok).toBe(false);
    expect(refused.tests).toEqual([]);
    expect(refused.problems).toEqual([expect.objectContaining({ code: 'unresolved_install_variable', file: 'rules/service-interval-due.yaml', line: 11, path: '/spec/workspaceId' })]);
  });
});
