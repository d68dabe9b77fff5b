/**
 * Rules with `action.target: task` in process scenarios, beyond the fixtures: what a matched rule may not close,
 * a disabled rule, an observation that is not bound to a task, and a rule without an author filter.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/sandbox/index.js';

const ROOT = join(import.meta.dirname, '../..');

const rule = (key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: WorkRule\nkey: ${key}\nspec:\n${spec}`;

const SCENARIO = `process: order
name: decisions that do not close the task
given:
  clock: "2026-10-06T09:00:00+02:00"
  principals: {approver: [ann, bob]}
mocks:
  skills:
    stock.reserve@1:
      - output: {reservation: R-1}
steps:
  - emit: {observation: order.placed, payload: {orderId: O-1, amount: 120}}
  - emit: {observation: order.checked, payload: {result: ok}}
  - expect: {rules: []}
  - emit: {observation: order.flagged, task: check-order, payload: {result: ok}}
  - expect:
      tasks: [{step: check-order}]
      rules:
        - {rule: misfiled, action: complete_work, step: check-order, result: failed, reason: "has type order-check, which the rule may not close (taskTypes: task)"}
        - {rule: switched-off, step: check-order, result: skipped, reason: the rule is disabled}
`;

/** The engine fixture with two more rules and this scenario as its only test. */
async function runWithExtraRules(scenario: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-task-rules-'));
  try {
    const pkg = join(dir, 'engine-demo');
    const source = join(ROOT, 'fixtures/sandbox/packages/engine-demo');
    cpSync(source, pkg, { recursive: true, filter: (path) => !path.startsWith(join(source, 'tests')) });
    writeFileSync(join(pkg, 'rules/misfiled.yaml'), rule('misfiled', '  trigger: {kind: observation, type: order.flagged}\n  action: {kind: complete_work, target: task, taskTypes: [task]}\n'));
    writeFileSync(join(pkg, 'rules/switched-off.yaml'), rule('switched-off', '  status: disabled\n  trigger: {kind: observation, type: order.flagged}\n  action: {kind: cancel_work, target: task, taskTypes: [order-check]}\n'));
    mkdirSync(join(pkg, 'tests'));
    writeFileSync(join(pkg, 'tests/scenario.test.yaml'), scenario);
    return (await runTests({ cwd: dir, paths: ['engine-demo'] })).report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('rules on process tasks', () => {
  it('records why a matched rule could not close the task, skips a disabled rule and ignores unbound observations', async () => {
    const report = await runWithExtraRules(SCENARIO);
    expect(report.problems).toEqual([]);
    expect(report.tests.map((t) => [t.status, t.failure?.message])).toEqual([['passed', undefined]]);
  });

  it('a rule without an author filter takes anyone\'s observation, and an approval task is not its to close', async () => {
    const report = await runWithExtraRules(SCENARIO.replace(/  - emit: \{observation: order\.flagged[^]*$/, `  - advance: PT1H
  - complete: {step: check-order, by: ann}
  - emit: {observation: order.flagged, task: approve-order, by: zed, payload: {}}
  - expect:
      rules: [{rule: misfiled, step: approve-order, result: failed, reason: "has type approval"}]
`));
    expect(report.tests.map((t) => [t.status, t.failure?.message])).toEqual([['passed', undefined]]);
  });
});
