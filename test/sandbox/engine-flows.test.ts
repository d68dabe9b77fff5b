/**
 * The process engine where the engine fixture's scenarios do not reach: flows that run side by side (the order
 * their steps record events in), an interrupting stage timer, escalations that reassign and raise, a repeatable
 * stage, correlation by key, a listen that times out, and the order coverage lists what was missed in.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { Catalog } from '../../src/sandbox/catalog.js';
import { ProcessRun } from '../../src/sandbox/engine.js';
import { runTests } from '../../src/sandbox/index.js';
import { MockBook } from '../../src/sandbox/mocks.js';
import { SchemaChecker } from '../../src/sandbox/schemas.js';
import { overlay } from '../support/overlay.js';

const processObject = (key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: Process\nkey: ${key}\nspec:\n  version: 1\n  displayName: ${key}\n  identity: {agent: order-process}\n  owner: [{role: approver}]\n${spec}`;

/** Four branches whose steps take different paths through the engine: a call, plain writes, a nested block, a caught error. */
const RELAY = processObject('relay', `  data:
    type: object
    properties:
      orderId: {type: string}
      a: {type: integer}
      b1: {type: integer}
      b2: {type: integer}
      b3: {type: integer}
      c1: {type: integer}
      c2: {type: integer}
      d1: {type: integer}
  start:
    "on": {observation: relay.started}
    key: event.payload.orderId
    set: {orderId: event.payload.orderId}
  stages:
    - id: spread
      steps:
        - id: branches
          fork:
            branches:
              - id: by-call
                do:
                  - {id: reserve, call: {skill: stock.reserve@1, input: {orderId: data.orderId}}}
                  - {id: a, set: {a: "1"}}
              - id: by-writes
                do: [{id: b1, set: {b1: "1"}}, {id: b2, set: {b2: "1"}}, {id: b3, set: {b3: "1"}}]
              - id: by-block
                do: [{id: block, do: [{id: c1, set: {c1: "1"}}]}, {id: c2, set: {c2: "1"}}]
              - id: by-error
                do:
                  - id: guarded
                    try:
                      do: [{id: fail, raise: {type: oops}}]
                      catch: [{do: [{id: d1, set: {d1: "1"}}]}]
`);

const DISPATCH = processObject('dispatch', `  data:
    type: object
    properties:
      jobId: {type: string}
      note: {type: string}
      late: {type: string}
      cutoff: {type: boolean}
      needsReview: {type: boolean}
      reviews: {type: integer}
      heard: {type: string}
  start:
    "on": {observation: job.opened}
    key: event.payload.jobId
    set: {jobId: event.payload.jobId, reviews: "0"}
  correlate:
    - "on": {observation: job.updated}
      key: event.payload.jobId
      set: {note: event.payload.note}
  onEvent:
    - "on": {observation: job.review-requested}
      do: [{id: ask-review, set: {needsReview: "true"}}]
  stages:
    - id: triage
      steps:
        - id: guarded
          try:
            do:
              - id: assess
                human:
                  taskType: order-check
                  assign: [{role: approver}]
                  due: PT2H
                  escalations:
                    - {after: PT30M, action: reassign, to: [{principal: "00000000-0000-4000-8000-00000000000c"}]}
                    - {after: PT1H, action: raise, error: {type: assess-late, detail: "'late ' + data.jobId"}}
            catch:
              - errors: {type: assess-late}
                as: failure
                do: [{id: mark-late, set: {late: failure.detail}}]
      timers:
        - id: cutoff
          at: {at: "data.jobId == 'J-slow' ? duration('PT90M') : duration('PT10H')"}
          interrupting: true
          do: [{id: cut, set: {cutoff: "true"}}]
    - id: review
      entry: data.needsReview == true
      repeatable: true
      steps:
        - {id: reviewed, set: {needsReview: "false", reviews: "data.reviews + 1"}}
    - id: wrap-up
      entry: stage.triage.completed
      steps:
        - id: hear
          listen:
            any:
              - "on": {observation: job.signal}
                do: [{id: heard-signal, set: {heard: "'signal'"}}]
            timeout: PT1H
            onTimeout: [{id: heard-nothing, set: {heard: "'nothing'"}}]
`);

const scenario = (name: string, jobId: string, steps: string) => `process: dispatch
name: ${name}
given:
  clock: "2026-10-06T09:00:00+02:00"
  principals: {approver: [ann]}
steps:
  - emit: {observation: job.opened, payload: {jobId: ${jobId}}}
${steps}`;

/** The engine fixture with these two processes, and scenarios of the second as its only tests. */
const dir = overlay('sandbox/packages', {
  'engine-demo/tests': null,
  'engine-demo/processes/relay.yaml': RELAY,
  'engine-demo/processes/dispatch.yaml': DISPATCH,
  'engine-demo/tests/escalations.test.yaml': scenario('escalations reassign the task, then raise into the try around it', 'J-1', `  - advance: PT2H40M
  - expect:
      tasks: [{step: assess, assignee: "00000000-0000-4000-8000-00000000000c"}]
      events: [process.task_created, process.sla_breached, process.escalated]
  - advance: PT30M
  - expect:
      data: {late: late J-1}
      stages: {triage: completed, wrap-up: open}
      events: [process.escalated, process.error_caught, process.step_completed, process.stage_completed, process.stage_entered]
`),
  'engine-demo/tests/cutoff.test.yaml': scenario('an interrupting timer cancels the work of its stage, runs its block and completes the stage', 'J-slow', `  - advance: PT90M
  - expect:
      data: {cutoff: true}
      stages: {triage: completed, wrap-up: open}
      tasks: [{step: assess, status: cancelled}]
      events: [process.timer_fired, process.step_completed, process.stage_completed, process.stage_entered]
  - advance: PT1H
  - expect: {status: completed, data: {heard: nothing}, events: [process.listen_timeout]}
`),
  'engine-demo/tests/review.test.yaml': scenario('a repeatable stage opens again, correlation goes by key', 'J-2', `  - emit: {observation: job.updated, payload: {jobId: J-3, note: not ours}}
  - emit: {observation: job.updated, payload: {jobId: J-2, note: ours}}
  - emit: {observation: job.review-requested}
  - emit: {observation: job.review-requested}
  - expect:
      data: {note: ours, reviews: 2}
      stages: {triage: open, review: completed}
      events: [process.correlated, process.stage_entered, process.stage_completed, process.stage_entered, process.stage_completed]
`),
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flows side by side', () => {
  it('record their steps in the order of the hops each kind of step takes', async () => {
    const { report, workspace } = await check({ cwd: dir, paths: ['engine-demo'] });
    expect(report.errors).toEqual([]);
    const catalog = Catalog.forPackage(workspace, 'engine-demo');
    const run = new ProcessRun({
      process: catalog.object('Process', 'relay')!,
      catalog,
      mocks: new MockBook({ skills: { 'stock.reserve@1': [{ output: { reservation: 'R-1' } }] } }, () => false),
      schemas: new SchemaChecker(),
      given: {},
      variables: catalog.variables(),
    });
    await run.emit({ type: 'relay.started', kind: 'observation', time: run.clock.iso(), payload: { orderId: 'O-1' } });
    expect(run.status).toBe('completed');
    expect(run.events.map((event) => `${event.type.slice('process.'.length)} ${event.step ?? ''}`.trim())).toEqual([
      'started', 'stage_entered spread', 'call reserve', 'step_completed b1', 'step_completed c1', 'step_completed reserve', 'step_completed b2',
      'error_caught', 'step_completed block', 'step_completed a', 'step_completed d1', 'step_completed b3', 'step_completed c2',
      'step_completed guarded', 'step_completed branches', 'stage_completed spread', 'completed',
    ]);
  });
});

describe('stages, timers, escalations and correlation', () => {
  const reportPromise = runTests({ cwd: dir, paths: ['engine-demo'] });

  it('pass the scenarios written for them', async () => {
    const { report } = await reportPromise;
    expect(report.problems).toEqual([]);
    expect(report.tests.map((t) => [t.name, t.status, t.failure?.message])).toEqual([
      ['an interrupting timer cancels the work of its stage, runs its block and completes the stage', 'passed', undefined],
      ['escalations reassign the task, then raise into the try around it', 'passed', undefined],
      ['a repeatable stage opens again, correlation goes by key', 'passed', undefined],
    ]);
  });

  it('list what coverage missed stage by stage, a listen\'s timeout block before its options', async () => {
    const { report } = await reportPromise;
    expect(report.coverage).toEqual([expect.objectContaining({ process: 'dispatch', total: 13, missed: ['heard-signal'] })]);
    const cutoff = report.tests.find((t) => t.file.endsWith('/cutoff.test.yaml'));
    expect(cutoff?.coverage?.missed).toEqual(['review', 'mark-late', 'reviewed', 'heard-signal', 'ask-review']);
    const escalations = report.tests.find((t) => t.file.endsWith('/escalations.test.yaml'));
    expect(escalations?.coverage?.missed).toEqual(['cutoff', 'review', 'cut', 'reviewed', 'heard-nothing', 'heard-signal', 'ask-review']);
  });
});
