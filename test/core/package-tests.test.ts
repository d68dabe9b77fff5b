import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/check/rules/index.js';
import { coreCodes, coreFindings } from '../../src/server/core-checks.js';
import { readPackageSource } from '../../src/server/package-source.js';
import { withoutRepeats } from '../../src/server/problems.js';
import type { ScenarioRun } from '../../src/server/route.js';
import { parseSeed } from '../../src/server/seed.js';
import { FIXTURES } from '../support/overlay.js';
import { DESK, OURS, type TestCore, clientFiles, packageFiles, startTestCore } from './support.js';

/**
 * `POST /packages:test` (compat-core-packages §6): the core's checks only — the rule codes marked `core: true`
 * and the core's reading of the files — an `invalid` answer when one of them is an error, the tests selected
 * before anything runs, and the engine run only when nothing is wrong.
 */
const EXAMPLE = join(FIXTURES, 'example/packages/field-maintenance');
const DEADLINES = join(FIXTURES, 'sandbox/packages/workshop-deadlines');
const WORKSPACE = '5b0f6c1e-2a4d-4e8b-9c3f-7d1a2b3c4d5e';
const VALUES = { MAINTENANCE_WORKSPACE_ID: WORKSPACE, FLEET_API_URL: 'https://fleet.example.org', STORES_API_URL: 'https://stores.example.org' };
type File = { path: string; content: string };

let core: TestCore;
let plugged: TestCore;
const runs: ScenarioRun[] = [];

beforeAll(async () => {
  core = await startTestCore({ seed: parseSeed({ workspaces: [WORKSPACE] }) });
  plugged = await startTestCore({
    packageTester: async (run) => {
      runs.push(run);
      return { tests: run.tests.map((file) => ({ file, status: file.includes('late') ? 'failed' : 'passed' })), coverage: [], ruleCoverage: [], taskTypeCoverage: [] };
    },
  });
});
afterAll(async () => {
  await core.dispose();
  await plugged.dispose();
});

async function test(on: TestCore, files: File[], options: { checkOnly?: boolean; tests?: string[]; workspaceId?: string } = {}) {
  const { checkOnly, ...body } = options;
  const answer = await on.call('POST', `/api/v1/packages:test${checkOnly ? '?checkOnly=true' : ''}`, { body: { package: { files }, ...body } });
  OURS.install.answer('/api/v1/packages:test', 'POST', answer);
  return answer;
}

const codes = (answer: { body: { problems: { code: string; path: string; file: string | null }[] } }) => answer.body.problems.map((p) => `${p.code} ${p.file ?? '-'}${p.path}`);

describe('checkOnly', () => {
  it('passes the example sent as the client sends it: substituted, no KnowledgePack', async () => {
    const answer = await test(core, await clientFiles(EXAMPLE, VALUES), { checkOnly: true });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'passed', checkOnly: true, problems: [], tests: [], coverage: [], ruleCoverage: [], taskTypeCoverage: [], durationMs: expect.any(Number) });
  });

  it('is invalid for the package as it lies on disk: a KnowledgePack is no kind of the core, and ${…} is not put in', async () => {
    const answer = await test(core, packageFiles(EXAMPLE), { checkOnly: true });
    expect(answer.body.status).toBe('invalid');
    expect(codes(answer)).toEqual(['unknown_kind knowledge-packs/equipment.yaml/kind', 'unresolved_install_variable rules/service-interval-due.yaml/spec/workspaceId']);
    expect(await test(core, packageFiles(EXAMPLE), { checkOnly: true, workspaceId: WORKSPACE }).then(codes)).toEqual(['unknown_kind knowledge-packs/equipment.yaml/kind']);
  });

  it('answers 404 for a workspace the core does not have', async () => {
    const answer = await test(core, packageFiles(DESK), { checkOnly: true, workspaceId: '99999999-2222-4333-8444-555555555555' });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({ code: 'not_found', details: { workspaceId: '99999999-2222-4333-8444-555555555555' } });
  });
});

describe('tests selected before the run', () => {
  const files = () => packageFiles(DEADLINES);

  it('runs the engine on the selected test files only, and answers failed when one fails', async () => {
    runs.length = 0;
    const answer = await test(plugged, files(), { tests: ['tests/repair-late.test.yaml', 'tests/repair-in-time.test.yaml', 'tests/repair-late.test.yaml'] });
    expect(runs.map((run) => run.tests)).toEqual([['tests/repair-late.test.yaml', 'tests/repair-in-time.test.yaml']]);
    expect(answer.body).toMatchObject({ status: 'failed', checkOnly: false, problems: [], tests: [{ file: 'tests/repair-late.test.yaml', status: 'failed' }, { file: 'tests/repair-in-time.test.yaml' }] });
  });

  it('reports a named file that is no test of the package, and runs nothing then', async () => {
    runs.length = 0;
    const broken = [...files(), { path: 'tests/broken.test.yaml', content: 'process: machine-repair\nname: broken\nsteps: 3\n' }];
    const answer = await test(plugged, broken, { tests: ['tests/repair-late.test.yaml', 'tests/nope.test.yaml', 'tests/broken.test.yaml', 'processes/machine-repair.yaml'] });
    expect(answer.body.status).toBe('invalid');
    expect(codes(answer)).toEqual(['unknown_test -/tests/1', 'unknown_test -/tests/3', 'invalid_test tests/broken.test.yaml/steps']);
    expect(answer.body.tests).toEqual([]);
    expect(runs).toEqual([]);
    expect((await test(plugged, files(), { checkOnly: true })).body.status).toBe('passed');
    expect(runs).toEqual([]);
  });

  it('refuses a process test pinned to another version than the package\'s', async () => {
    const pinned = files().map((file) => (file.path === 'tests/repair-late.test.yaml' ? { ...file, content: file.content.replace('process: machine-repair', 'process: machine-repair\nversion: 7') } : file));
    expect(codes(await test(plugged, pinned, { checkOnly: true }))).toEqual(['test_version_mismatch tests/repair-late.test.yaml/version']);
  });

  it('refuses more than 100 rule and task-type tests in one request', async () => {
    const rule = { path: 'rules/reopened.yaml', content: 'apiVersion: taimen.ai/v1\nkind: WorkRule\nkey: reopened\nspec: {trigger: {kind: observation, type: x}, action: {kind: ensure_work, taskType: desk-review, dedupKeyTemplate: "x:{{payload.id}}", fields: {title: Look}}}\n' };
    const tests = Array.from({ length: 101 }, (_, i) => ({ path: `tests/r${i}.test.yaml`, content: `subject: rule\nrule: reopened\nname: r${i}\nsteps: [{expect: {result: matched}}]\n` }));
    const answer = await test(plugged, [...packageFiles(DESK), rule, ...tests], { checkOnly: true, tests: tests.map((t) => t.path) });
    expect(codes(answer)).toEqual(['too_many_tests -/tests']);
    expect(codes(await test(plugged, [...packageFiles(DESK), rule, ...tests], { checkOnly: true }))).toEqual(['too_many_tests -/tests']);
    expect(codes(await test(plugged, [...packageFiles(DESK), rule, ...tests.slice(1)], { checkOnly: true }))).toEqual([]);
  });

  it('runs the scenarios in the sandbox engine by default', async () => {
    const all = await test(core, files());
    expect(all.body).toMatchObject({ status: 'passed', problems: [] });
    expect(all.body.tests.map((t: any) => [t.file, t.status])).toEqual([
      ['tests/repair-in-time.test.yaml', 'passed'], ['tests/repair-late.test.yaml', 'passed'], ['tests/repair-saturday.test.yaml', 'passed'],
    ]);
    const one = await test(core, files(), { tests: ['tests/repair-saturday.test.yaml'] });
    expect(one.body.tests.map((t: any) => t.file)).toEqual(['tests/repair-saturday.test.yaml']);
  });
});

describe('the core\'s checks: the codes rules mark core: true', () => {
  const manifest = { path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: checked\nspec:\n  version: 1.0.0\n  displayName: Checked\n  variables: {UNUSED: {kind: string, description: Not used, default: x}}\n' };
  const process = {
    path: 'processes/intake.yaml',
    content: [
      'apiVersion: taimen.ai/v1', 'kind: Process', 'key: intake', 'spec:', '  version: 1', '  displayName: Intake', '  data: {type: object, properties: {id: {type: string}}}',
      '  start: {on: {observation: x.created}, key: event.payload.id}', '  stages:', '    - id: review', '      steps:', '        - id: check',
      '          human: {taskType: nope, assign: [{role: clerk}]}', '        - id: check', '          complete: {outcome: done}', '',
    ].join('\n'),
  };

  it('are the codes rules declare core: true, and never the SDK\'s own', () => {
    const marked = coreCodes();
    // A code several rules share (invalid_json_schema) is the core's when one of them marks it so.
    const byCore = new Set(RULES.flatMap((rule) => Object.entries(rule.codes).filter(([, meta]) => meta.core === true).map(([code]) => code)));
    for (const rule of RULES) for (const code of Object.keys(rule.codes)) expect(marked.has(code), code).toBe(byCore.has(code));
    for (const code of ['variable_unused', 'variable_undeclared', 'knowledge_unknown', 'schema_violation', 'engines_mismatch']) expect(marked.has(code), code).toBe(false);
  });

  it('keep the findings of those codes, in the core\'s shape, and drop every other', async () => {
    const files = [manifest, process];
    const source = await readPackageSource(files, null);
    const problems = await coreFindings(files, source, { defaults: false, codes: new Set(['duplicate_element_id', 'unknown_task_type']) });
    expect(problems.map(({ hint: _hint, ...problem }) => problem)).toEqual([
      { code: 'unknown_task_type', severity: 'error', path: '/spec/stages/0/steps/0/human/taskType', file: 'processes/intake.yaml', line: 13, message: expect.stringContaining("'nope'") },
      { code: 'duplicate_element_id', severity: 'error', path: '/spec/stages/0/steps/1/id', file: 'processes/intake.yaml', line: 14, message: expect.stringContaining("'check'") },
    ]);
    expect(await coreFindings(files, source, { defaults: false, codes: new Set() })).toEqual([]);
    // A file where another one needs a directory cannot be written out: it is left unchecked, the rest is not.
    const clash = [...files, { path: 'processes/intake.yaml/notes.yaml', content: 'a: 1\n' }];
    expect((await coreFindings(clash, await readPackageSource(clash, null), { defaults: false, codes: new Set(['duplicate_element_id']) })).map((p) => p.code)).toEqual(['duplicate_element_id']);
    const marked = await coreFindings(files, source, { defaults: false });
    expect(marked.every((problem) => coreCodes().has(problem.code))).toBe(true);
  });

  it('report a mistake the core\'s reading of the files finds too only once', async () => {
    const review = (name: string) => ({ path: `task-types/${name}.yaml`, content: 'apiVersion: taimen.ai/v1\nkind: TaskType\nkey: review\nspec: {displayName: Review}\n' });
    const files = [manifest, review('a'), review('b')];
    const source = await readPackageSource(files, null);
    const checks = await coreFindings(files, source, { defaults: false, codes: new Set(['duplicate_object']) });
    const at = (problems: { code: string; file: string | null; path: string }[]) => problems.map((p) => `${p.code} ${p.file}${p.path}`);
    expect(at(source.problems)).toEqual(['duplicate_object task-types/b.yaml/key']);
    expect(at(checks)).toEqual(['duplicate_object task-types/b.yaml/key']);
    expect(at(withoutRepeats([...source.problems, ...checks]))).toEqual(['duplicate_object task-types/b.yaml/key']);
  });

  it('in /packages:test, see the manifest defaults put in and skip a task type, rule or agent still holding ${…}', async () => {
    const taskType = (extra: string) => ({
      path: 'task-types/secret.yaml',
      content: [
        'apiVersion: taimen.ai/v1', 'kind: TaskType', 'key: secret', 'spec:', '  displayName: ${TITLE}', `  fieldSchema: {type: object, properties: {apiToken: {type: string}${extra}}}`,
        '  lifecycleSchema:', '    statuses: [{key: todo, category: active, displayName: To do}, {key: done, category: terminal_success, displayName: Done}]',
        '    transitions: [{from: todo, to: [done]}]', '    initialStatus: todo', '    completionStatus: done', '',
      ].join('\n'),
    });
    const withDefault = { ...manifest, content: manifest.content.replace('UNUSED: {kind: string, description: Not used, default: x}', 'TITLE: {kind: string, description: The title, default: Secret}') };
    const secret = new Set(['secret_material_rejected']);
    const read = async (files: File[]) => coreFindings(files, await readPackageSource(files, null), { defaults: true, codes: secret });
    expect((await read([withDefault, taskType('')])).map((p) => `${p.code} ${p.file}`)).toEqual(['secret_material_rejected task-types/secret.yaml']);
    expect(await read([manifest, taskType('')])).toEqual([]);
    expect(await read([withDefault, taskType(', note: {description: "${LATER}"}')])).toEqual([]);
  });
});
