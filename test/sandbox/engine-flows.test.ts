/**
 * The process engine where the fixtures' scenarios do not reach: threads that run side by side (each runs until
 * it waits, in the order the threads were made), an interrupting stage timer, escalations that reassign and
 * raise, a repeatable stage, correlation by key, a listen that times out, a stage never entered that keeps
 * the instance running, and the order coverage lists what was missed in.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { Catalog } from '../../src/sandbox/catalog.js';
import { runTests, type ElementCoverage } from '../../src/sandbox/index.js';
import { MockBook } from '../../src/sandbox/mocks.js';
import { SchemaChecker } from '../../src/sandbox/schemas.js';
import { Sandbox } from '../../src/sandbox/world.js';
import { overlay } from '../support/overlay.js';

const processObject = (key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: Process\nkey: ${key}\nspec:\n  version: 1\n  displayName: ${key}\n  identity: {agent: order-process}\n  owner: [{role: approver}]\n${spec}`;

/** Four branches whose steps take different paths through the engine: a call, plain writes, a nested block, a caught error; each writes its steps into the log. */
const RELAY = processObject('relay', `  data:
    type: object
    properties:
      orderId: {type: string}
      log: {type: array, items: {type: string}}
  start:
    "on": {observation: relay.started}
    key: event.payload.orderId
    set: {orderId: event.payload.orderId, log: "[]"}
  stages:
    - id: spread
      steps:
        - id: branches
          fork:
            branches:
              - id: by-call
                do:
                  - {id: reserve, call: {skill: stock.reserve@1, input: {orderId: data.orderId}}}
                  - {id: a, set: {log: "data.log + ['a']"}}
              - id: by-writes
                do: [{id: b1, set: {log: "data.log + ['b1']"}}, {id: b2, set: {log: "data.log + ['b2']"}}, {id: b3, set: {log: "data.log + ['b3']"}}]
              - id: by-block
                do: [{id: block, do: [{id: c1, set: {log: "data.log + ['c1']"}}]}, {id: c2, set: {log: "data.log + ['c2']"}}]
              - id: by-error
                do:
                  - id: guarded
                    try:
                      do: [{id: fail, raise: {type: oops}}]
                      catch: [{do: [{id: d1, set: {log: "data.log + ['d1']"}}]}]
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
      events: [process.step_entered, process.sla_breached, process.escalated]
  - advance: PT30M
  - expect:
      data: {late: late J-1}
      stages: {triage: completed, wrap-up: open}
      tasks: [{step: assess, status: cancelled}]
      events: [process.escalated, process.step_exited, process.stage_exited, process.stage_entered]
`),
  'engine-demo/tests/cutoff.test.yaml': scenario('an interrupting timer ends the work of its stage, whose own block then runs; a stage never entered keeps the instance running', 'J-slow', `  - advance: PT90M
  - expect:
      data: {cutoff: true}
      stages: {triage: completed, wrap-up: open}
      tasks: [{step: assess, status: cancelled}]
      events: [process.timer_fired, process.step_exited, process.stage_exited, process.stage_entered]
  - advance: PT1H
  - expect: {status: running, stages: {wrap-up: completed, review: not_started}, data: {heard: nothing}, events: [process.step_exited, process.stage_exited]}
`),
  'engine-demo/tests/review.test.yaml': scenario('a repeatable stage opens again, correlation goes by key', 'J-2', `  - emit: {observation: job.updated, payload: {jobId: J-3, note: not ours}}
  - emit: {observation: job.updated, payload: {jobId: J-2, note: ours}}
  - emit: {observation: job.review-requested}
  - emit: {observation: job.review-requested}
  - expect:
      data: {note: ours, reviews: 2}
      stages: {triage: open, review: completed}
      events: [process.correlated, process.stage_entered, process.stage_exited, process.stage_entered, process.stage_exited]
`),
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('threads side by side', () => {
  it('run in the order they were made, each until it waits; an answer continues its thread in an input of its own', async () => {
    const { report, workspace } = await check({ cwd: dir, paths: ['engine-demo'] });
    expect(report.errors).toEqual([]);
    const catalog = Catalog.forPackage(workspace, 'engine-demo');
    const world = new Sandbox({
      process: catalog.object('Process', 'relay')!,
      catalog,
      mocks: new MockBook({ skills: { 'stock.reserve@1': [{ output: { reservation: 'R-1' } }] } }, () => false),
      schemas: new SchemaChecker(),
      given: {},
      variables: catalog.variables(),
    });
    world.emit({ observation: 'relay.started', payload: { orderId: 'O-1' } });
    const instance = world.root!.instance;
    expect(instance.status).toBe('completed');
    expect(instance.data.log).toEqual(['b1', 'b2', 'b3', 'c1', 'c2', 'd1', 'a']);
    expect(instance.events.map((event) => `${event.type.slice('process.'.length)} ${event.element ?? ''}`.trim())).toEqual([
      'started', 'stage_entered spread', 'data_changed', 'step_entered reserve',
      'stage_exited spread', 'data_changed', 'completed', 'step_exited reserve',
    ]);
  });
});

describe('stages, timers, escalations and correlation', () => {
  const reportPromise = runTests({ cwd: dir, paths: ['engine-demo'] });

  it('pass the scenarios written for them', async () => {
    const { report } = await reportPromise;
    expect(report.problems).toEqual([]);
    expect(report.tests.map((t) => [t.name, t.status, t.failures.map((f) => f.message)])).toEqual([
      ['an interrupting timer ends the work of its stage, whose own block then runs; a stage never entered keeps the instance running', 'passed', []],
      ['escalations reassign the task, then raise into the try around it', 'passed', []],
      ['a repeatable stage opens again, correlation goes by key', 'passed', []],
    ]);
  });

  it('list what coverage missed stage by stage, a listen\'s timeout block before its options', async () => {
    const { report } = await reportPromise;
    expect(report.coverage).toEqual([expect.objectContaining({ process: 'dispatch', total: 13, missed: ['heard-signal'] })]);
    const cutoff = report.tests.find((t) => t.file.endsWith('/cutoff.test.yaml'));
    expect((cutoff?.coverage as ElementCoverage | undefined)?.missed).toEqual(['review', 'mark-late', 'reviewed', 'heard-signal', 'ask-review']);
    const escalations = report.tests.find((t) => t.file.endsWith('/escalations.test.yaml'));
    expect((escalations?.coverage as ElementCoverage | undefined)?.missed).toEqual(['cutoff', 'review', 'cut', 'reviewed', 'heard-nothing', 'heard-signal', 'ask-review']);
  });
});
