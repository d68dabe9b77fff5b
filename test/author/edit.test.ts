/**
 * `edit` on a real package written by hand (fixtures/edit/packages/intake): every operation leaves every line it
 * does not change exactly as it was — comments, blank lines, quoting, flow style, unindented sequences — the
 * package still checks clean, and an edit that would make it invalid is refused with the file untouched.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editPackage, type EditRequest } from '../../src/author/edit/index.js';
import { check } from '../../src/check/index.js';
import { Refusal } from '../../src/fs/refusal.js';
import { runTests } from '../../src/sandbox/index.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const BASE = join(FIXTURES, 'edit/packages');
const PROCESS = 'processes/intake.yaml';
const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh copy of the fixture packages; returns the package directory. */
function copy(): string {
  const dir = overlay(BASE);
  copies.push(dir);
  return join(dir, 'intake');
}

const read = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8');

/** The lines of `after` that `before` does not have, once `before`'s lines are matched in order; fails when a line of `before` is missing. */
function addedLines(before: string, after: string): string[] {
  const old = before.split('\n');
  const added: string[] = [];
  let i = 0;
  for (const line of after.split('\n')) {
    if (i < old.length && line === old[i]) i++;
    else added.push(line);
  }
  expect(old.slice(i), 'every line of the file is kept, in order').toEqual([]);
  return added;
}

async function edited(request: EditRequest): Promise<{ dir: string; before: string; after: string }> {
  const dir = copy();
  const file = 'file' in request && request.file ? request.file : PROCESS;
  const before = read(dir, file);
  const result = await editPackage(request, { cwd: dir });
  expect(result.written).toBe(true);
  const { report } = await check({ cwd: dir, paths: ['.'] });
  expect(report.errors).toEqual([]);
  return { dir, before, after: read(dir, file) };
}

describe('edit keeps what it does not change', () => {
  it('add-step: the new step in the file\'s own style, before the closing complete step; the scenario still passes', async () => {
    const { dir, before, after } = await edited({ operation: 'add-step', file: PROCESS, in: 'review', step: '{id: note-amount, set: {amount: data.amount}}' });
    expect(addedLines(before, after)).toEqual(['    - id: note-amount', '      set:', '        amount: data.amount']);
    expect(after.indexOf('note-amount')).toBeLessThan(after.indexOf('- id: done'));
    const { report } = await runTests({ cwd: dir, paths: ['.'] });
    expect(report.tests.map((test) => test.status)).toEqual(['passed']);
  });

  it('add-step --block --after: several steps in order after the one named', async () => {
    const { before, after } = await edited({
      operation: 'add-step', file: PROCESS, in: 'screen', block: true, after: 'pick-lane',
      step: '- {id: mark-screened, set: {decision: "\'screened\'"}}\n- {id: mark-laned, set: {decision: "\'laned\'"}}',
    });
    expect(addedLines(before, after).filter((line) => line.includes('- id:'))).toEqual(['    - id: mark-screened', '    - id: mark-laned']);
  });

  it('add-stage: a stage between two others', async () => {
    const { before, after } = await edited({
      operation: 'add-stage', file: PROCESS, after: 'screen',
      stage: "id: acknowledge\nsteps:\n- id: acknowledged\n  set: {decision: \"'seen'\"}",
    });
    expect(addedLines(before, after)).toEqual(['  - id: acknowledge', '    steps:', '    - id: acknowledged', '      set:', `        decision: "'seen'"`]);
    expect(after.indexOf('id: acknowledge')).toBeGreaterThan(after.indexOf('id: screen'));
    expect(after.indexOf('id: acknowledge')).toBeLessThan(after.indexOf('id: review'));
  });

  it('add-decision-row: a flow row among flow rows, before the closing catch-all of a first table', async () => {
    const { before, after } = await edited({ operation: 'add-decision-row', file: PROCESS, table: 'lane', row: '{when: {amount: "[1000..5000)"}, then: {lane: full}}' });
    expect(addedLines(before, after)).toEqual([`    - {when: {amount: '[1000..5000)'}, then: {lane: full}}`]);
    expect(after).toContain(`    - {when: {amount: '[1000..5000)'}, then: {lane: full}}\n    - {when: {amount: "-"}, then: {lane: full}}         # everything else\n`);
  });

  it('add-rule --table --index: a row at the head of the table', async () => {
    const { before, after } = await edited({ operation: 'add-rule', file: PROCESS, table: 'lane', row: '{when: {amount: "[0..10)"}, then: {lane: fast}}', index: 0 });
    expect(addedLines(before, after)).toEqual([`    - {when: {amount: '[0..10)'}, then: {lane: fast}}`]);
    expect(after).toContain(`    rules:\n    - {when: {amount: '[0..10)'}, then: {lane: fast}}\n`);
  });

  it('add-rule --on-event: a handler the process did not have', async () => {
    const { before, after } = await edited({ operation: 'add-rule', file: PROCESS, onEvent: "on: {observation: intake.withdrawn}\ndo:\n- id: withdrawn\n  complete: {outcome: withdrawn}" });
    expect(addedLines(before, after)).toEqual(['  onEvent:', '  - "on":', '      observation: intake.withdrawn', '    do:', '    - id: withdrawn', '      complete:', '        outcome: withdrawn', '']
      .slice(0, -1));
  });

  it('add-form-field: the field next to its flow-style siblings, and in required', async () => {
    const { before, after } = await edited({ operation: 'add-form-field', file: PROCESS, step: 'review-request', name: 'comment', schema: '{type: string, maxLength: 500}', required: true, label: 'Comment' });
    const added = addedLines(before.replace('required: [decision]', 'required: [decision, comment]'), after);
    expect(added).toEqual(['              comment: {type: string, maxLength: 500, title: Comment}']);
  });

  it('set: a quoted scalar keeps its quotes; a new key follows the file\'s layout; a YAML 1.1 trap is quoted', async () => {
    const first = await edited({ operation: 'set', file: PROCESS, path: '/spec/displayName', value: 'Intake of requests' });
    expect(first.after).toBe(first.before.replace("displayName: 'Intake'", "displayName: 'Intake of requests'"));
    const second = await edited({ operation: 'set', file: PROCESS, path: '/spec/description', value: 'no', string: true });
    expect(addedLines(second.before, second.after)).toEqual([`  description: 'no'`]);
  });

  it('set: a value inside a flow mapping, and a list item appended with -', async () => {
    const { before, after } = await edited({ operation: 'set', file: 'task-types/intake-review.yaml', path: '/spec/lifecycleSchema/statuses/0/displayName', value: 'Open' });
    expect(after).toBe(before.replace('displayName: To do}', 'displayName: Open}'));
    const appended = await edited({ operation: 'set', file: PROCESS, path: '/spec/owner/-', value: '{agent: intake-process}' });
    expect(appended.after).toBe(appended.before.replace('owner: [{role: intake-owner}]', 'owner: [{role: intake-owner}, {agent: intake-process}]'));
  });

  it('rename --file: the step, the scenario\'s references, the diagram and a migrations entry to the next version', async () => {
    const { dir, before, after } = await edited({ operation: 'rename', file: PROCESS, from: 'review-request', to: 'assess-request' });
    expect(addedLines(before.replace('- id: review-request', '- id: assess-request').replace('version: 3 ', 'version: 4 '), after))
      .toEqual(['  migrations:', '  - from: 3', '    to: 4', '    policy: migrate', '    map:', '      review-request: assess-request']);
    expect(read(dir, 'tests/intake.test.yaml')).toBe(read(join(BASE, 'intake'), 'tests/intake.test.yaml').replaceAll('step: review-request', 'step: assess-request'));
    expect(read(dir, '.layout/intake.json')).toBe(read(join(BASE, 'intake'), '.layout/intake.json').replace('"review-request"', '"assess-request"'));
    const { report } = await runTests({ cwd: dir, paths: ['.'] });
    expect(report.tests.map((test) => test.status)).toEqual(['passed']);
  });

  it('rename --file of a stage: guards that name it follow; a second rename extends the entry of the version being prepared', async () => {
    const dir = copy();
    await editPackage({ operation: 'rename', file: PROCESS, from: 'screen', to: 'triage' }, { cwd: dir });
    await editPackage({ operation: 'rename', file: PROCESS, from: 'triage', to: 'sorting' }, { cwd: dir });
    const text = read(dir, PROCESS);
    expect(text).toContain('    entry: stage.sorting.completed\n');
    expect(text).toContain('  version: 4   # published');
    expect(text).toContain('    map:\n      screen: sorting\n');
  });

  it('rename --file --no-migration: the id only', async () => {
    const { before, after } = await edited({ operation: 'rename', file: PROCESS, from: 'pick-lane', to: 'choose-lane', migration: false });
    expect(after).toBe(before.replace('- id: pick-lane', '- id: choose-lane'));
  });

  it('rename --package: an object, its file, and every reference — roles in assignments and in a test\'s principals', async () => {
    const dir = copy();
    const result = await editPackage({ operation: 'rename', package: '.', from: 'intake-owner', to: 'intake-lead' }, { cwd: dir });
    expect(result.files).toEqual([{ file: PROCESS }, { file: 'roles/intake-lead.yaml', from: 'roles/intake-owner.yaml' }, { file: 'tests/intake.test.yaml' }]);
    expect(existsSync(join(dir, 'roles/intake-owner.yaml'))).toBe(false);
    expect(read(dir, 'roles/intake-lead.yaml')).toBe(read(join(BASE, 'intake'), 'roles/intake-owner.yaml').replace('key: intake-owner', 'key: intake-lead'));
    expect(read(dir, 'tests/intake.test.yaml')).toContain('principals: {intake-lead: [alice]}');
    const { report } = await runTests({ cwd: dir, paths: ['.'] });
    expect(report.tests.map((test) => test.status)).toEqual(['passed']);
  });

  it('rename --package of a Process: the manifest gets the renames entry the core moves it by', async () => {
    const dir = copy();
    await editPackage({ operation: 'rename', package: '.', kind: 'Process', from: 'intake', to: 'request-intake' }, { cwd: dir });
    expect(read(dir, 'package.yaml')).toBe(`${read(join(BASE, 'intake'), 'package.yaml')}  renames: [{kind: Process, from: intake, to: request-intake}]\n`);
    expect(read(dir, 'tests/intake.test.yaml')).toContain('process: request-intake\n');
    expect(existsSync(join(dir, '.layout/request-intake.json'))).toBe(true);
    const { report } = await check({ cwd: dir, paths: ['.'] });
    expect(report.errors).toEqual([]);
  });
});

describe('edit refuses an invalid result and touches nothing', () => {
  const refused: [string, EditRequest, string][] = [
    ['add-step with an unknown field', { operation: 'add-step', file: PROCESS, in: 'review', step: '{id: odd, human: {taskType: intake-review}, colour: red}' }, 'edit_invalid'],
    ['add-step naming an unknown task type', { operation: 'add-step', file: PROCESS, in: 'review', step: '{id: odd, human: {taskType: nowhere}}' }, 'edit_invalid'],
    ['add-step with a taken id', { operation: 'add-step', file: PROCESS, in: 'review', step: '{id: done, complete: {outcome: x}}' }, 'element_exists'],
    ['add-step into no stage', { operation: 'add-step', file: PROCESS, in: 'nowhere', step: '{id: x, set: {a: b}}' }, 'unknown_stage'],
    ['add-stage without steps', { operation: 'add-stage', file: PROCESS, stage: '{id: empty}' }, 'edit_invalid'],
    ['add-decision-row with an unknown input', { operation: 'add-decision-row', file: PROCESS, table: 'lane', row: '{when: {size: "-"}, then: {lane: full}}' }, 'edit_invalid'],
    ['add-decision-row of no table', { operation: 'add-decision-row', file: PROCESS, table: 'priority', row: '{when: {}, then: {}}' }, 'unknown_decision_table'],
    ['add-rule with a malformed handler', { operation: 'add-rule', file: PROCESS, onEvent: '{do: []}' }, 'invalid_fragment'],
    ['add-form-field on a decide step', { operation: 'add-form-field', file: PROCESS, step: 'pick-lane', name: 'x', schema: '{type: string}' }, 'not_a_human_step'],
    ['add-form-field twice', { operation: 'add-form-field', file: PROCESS, step: 'review-request', name: 'decision', schema: '{type: string}' }, 'field_exists'],
    ['set a wrong type', { operation: 'set', file: PROCESS, path: '/spec/version', value: 'three' }, 'edit_invalid'],
    ['set the kind', { operation: 'set', file: PROCESS, path: '/kind', value: 'Agent' }, 'edit_refused'],
    ['rename to a taken id', { operation: 'rename', file: PROCESS, from: 'pick-lane', to: 'done' }, 'element_exists'],
    ['rename an agent to a key the schema refuses', { operation: 'rename', package: '.', from: 'intake-process', to: 'Intake Process' }, 'edit_invalid'],
  ];

  it.each(refused)('%s', async (_name, request, code) => {
    const dir = copy();
    const files = readdirSync(dir, { recursive: true }).map(String).sort();
    const snapshot = new Map(files.map((file) => [file, statSync(join(dir, file)).isFile() ? read(dir, file) : '']));
    const mtime = statSync(join(dir, PROCESS)).mtimeMs;
    const refusal = await editPackage(request, { cwd: dir }).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe(code);
    expect(readdirSync(dir, { recursive: true }).map(String).sort(), 'no file added or left behind').toEqual(files);
    for (const [file, text] of snapshot) if (text !== '') expect(read(dir, file), file).toBe(text);
    expect(statSync(join(dir, PROCESS)).mtimeMs).toBe(mtime);
  });

  it('names the finding the edit would bring, with its file and line', async () => {
    const step = '{id: odd, human: {taskType: nowhere, assign: [{role: intake-owner}]}}';
    const refusal = (await editPackage({ operation: 'add-step', file: PROCESS, in: 'review', step }, { cwd: copy() })
      .catch((error: unknown) => error)) as Refusal;
    expect(refusal.message).toMatch(/^the edit would make the package invalid — nothing was written: processes\/intake\.yaml:\d+: unknown_task_type: /);
    expect((refusal.details.findings as { code: string }[]).map((f) => f.code)).toEqual(['unknown_task_type']);
  });

  it('an edit that fixes a broken package is taken, though the package had errors before', async () => {
    const dir = overlay(BASE, { 'intake/task-types/intake-review.yaml': read(join(BASE, 'intake'), 'task-types/intake-review.yaml').replace('displayName: Intake review', 'displayName: 42') });
    copies.push(dir);
    const pkg = join(dir, 'intake');
    expect((await check({ cwd: pkg, paths: ['.'] })).report.ok).toBe(false);
    await editPackage({ operation: 'set', file: 'task-types/intake-review.yaml', path: '/spec/displayName', value: 'Intake review', string: true }, { cwd: pkg });
    expect((await check({ cwd: pkg, paths: ['.'] })).report.errors).toEqual([]);
  });
});

describe('edit --dry-run', () => {
  it('checks and returns the unified diff, writing nothing', async () => {
    const dir = copy();
    const before = read(dir, PROCESS);
    const result = await editPackage({ operation: 'set', file: PROCESS, path: '/spec/displayName', value: 'Triage' }, { cwd: dir, dryRun: true });
    expect(result).toMatchObject({ operation: 'set', dryRun: true, written: false, files: [{ file: PROCESS }] });
    expect(result.diff).toBe([
      '--- a/processes/intake.yaml', '+++ b/processes/intake.yaml', '@@ -6,7 +6,7 @@', ' key: intake', ' spec:', '   version: 3   # published: instances of 3 may be running',
      "-  displayName: 'Intake'", "+  displayName: 'Triage'", '   identity: {agent: intake-process}', '   owner: [{role: intake-owner}]', ' ', '',
    ].join('\n'));
    expect(read(dir, PROCESS)).toBe(before);
  });
});
