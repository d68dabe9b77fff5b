/**
 * Rules with `action.target: task` in process scenarios, beyond the fixtures: a task type the rule may not
 * close, a disabled rule (not evaluated), an observation not bound to a task (not offered), a step without a
 * task to bind to, and a rule that interprets with a skill (the core's sandbox refuses to run it).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/sandbox/index.js';

/** The author the rules filter on: the core refuses a rule with target: task without an author filter. */
const CHECKER = '3f2b9c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b';

const ROOT = join(import.meta.dirname, '../..');

const rule = (key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: WorkRule\nkey: ${key}\nspec:\n${spec}`;

const SCENARIO = `process: order
name: decisions that do not close the task
given:
  clock: "2026-10-06T09:00:00+02:00"
  principals: {approver: [ann], controller: [bob]}
mocks:
  skills:
    stock.reserve@1:
      - output: {reservation: R-1}
steps:
  - emit: {observation: order.placed, payload: {orderId: O-1, amount: 120}}
  - emit: {observation: order.flagged, payload: {data: {result: ok}}}
  - expect: {rules: []}
  - emit: {observation: order.flagged, task: check-order, by: ${CHECKER}, payload: {data: {result: ok}}}
  - expect:
      tasks: [{step: check-order}]
      rules: [{rule: misfiled, action: complete_work, step: check-order, result: skipped, reason: bound_task_type_not_listed}]
`;

/** The engine fixture with two more rules and this scenario as its only test. */
async function runWithExtraRules(scenario: string, more: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-task-rules-'));
  try {
    const pkg = join(dir, 'engine-demo');
    const source = join(ROOT, 'fixtures/sandbox/packages/engine-demo');
    cpSync(source, pkg, { recursive: true, filter: (path) => !path.startsWith(join(source, 'tests')) });
    writeFileSync(join(pkg, 'rules/misfiled.yaml'), rule('misfiled', `  trigger: {kind: observation, type: order.flagged, actorId: ${CHECKER}}\n  action: {kind: complete_work, target: task, taskTypes: [task]}\n`));
    writeFileSync(join(pkg, 'rules/switched-off.yaml'), rule('switched-off', `  status: disabled\n  trigger: {kind: observation, type: order.flagged, actorId: ${CHECKER}}\n  action: {kind: cancel_work, target: task, taskTypes: [order-check]}\n`));
    for (const [file, text] of Object.entries(more)) writeFileSync(join(pkg, file), text);
    mkdirSync(join(pkg, 'tests'));
    writeFileSync(join(pkg, 'tests/scenario.test.yaml'), scenario);
    return (await runTests({ cwd: dir, paths: ['engine-demo'] })).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('rules on process tasks', () => {
  it('skip a task of a type they may not close; a disabled rule decides nothing, an unbound observation is offered to none', async () => {
    const report = await runWithExtraRules(SCENARIO);
    expect(report.problems).toEqual([]);
    expect(report.tests.map((t) => [t.status, t.failures])).toEqual([['passed', []]]);
    const disabled = await runWithExtraRules(SCENARIO.replace('result: skipped, reason: bound_task_type_not_listed}]', 'result: skipped, reason: bound_task_type_not_listed}, {rule: switched-off}]'));
    expect(disabled.tests[0]?.failures[0]?.message).toMatch(/^rules: expected a decision \{"rule":"switched-off"\}, decisions since the last expect: \[\{"rule":"misfiled",[^\]]*\}\]$/);
  });

  it('skip an observation bound to a step that has no task (an approval)', async () => {
    const report = await runWithExtraRules(SCENARIO.replace(/  - emit: \{observation: order\.flagged, task[^]*$/, `  - advance: PT1H
  - complete: {step: check-order, by: ann}
  - emit: {observation: order.flagged, task: approve-order, by: ${CHECKER}, payload: {}}
  - expect:
      rules: [{rule: misfiled, step: approve-order, result: skipped, reason: no_bound_task}]
`));
    expect(report.tests.map((t) => [t.status, t.failures])).toEqual([['passed', []]]);
  });

  it('stop the scenario when a rule would interpret the observation with a skill', async () => {
    const report = await runWithExtraRules(SCENARIO, { 'rules/interpreted.yaml': rule('interpreted', `  trigger: {kind: observation, type: order.flagged, actorId: ${CHECKER}}\n  interpretation: {skill: stock.reserve@1, inputs: {orderId: "{{payload.data.result}}"}}\n  action: {kind: complete_work, target: task, taskTypes: [order-check]}\n`) });
    expect(report.tests).toMatchObject([{ status: 'failed', failures: [{ code: 'rule_interpretation_unsupported', step: 4 }] }]);
  });
});
