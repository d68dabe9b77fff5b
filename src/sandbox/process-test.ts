/**
 * `subject: process` (the default): a scenario drives one process instance — `emit`, `advance`, `complete`,
 * `approve`, `settings` — and `expect` compares what it sees with what the author expects. Lists compare as
 * subsets (the tasks, milestones, memory writes given must be there), `events` as a subsequence of the process
 * events since the previous `expect`; `rules` among the decisions of the package's task rules since then.
 */
import { processModel } from '../process/index.js';
import { coverageElements } from './coverage.js';
import { ProcessRun, type EngineEvent, type TaskRecord } from './engine.js';
import { milliseconds } from './due.js';
import { ScenarioFailure, type ElementCoverage } from './result.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { checkRuleDecisions, TaskRules, type TaskRuleDecision } from './task-rules.js';
import { containsValue, show, valueAt } from './values.js';
import { isRecord } from '../json/guards.js';

type Spec = Record<string, unknown>;

export function processRun(ctx: SubjectContext): SubjectRun {
  const key = String(ctx.test.process);
  const process = ctx.catalog.object('Process', key);
  if (process === undefined) throw new ScenarioFailure('unknown_subject', `process '${key}' — no such Process in the package`, { path: '/process' });
  const given = isRecord(ctx.test.given) ? ctx.test.given : {};
  const run = new ProcessRun({ process, catalog: ctx.catalog, mocks: ctx.mocks, schemas: ctx.schemas, given, variables: ctx.variables });
  const rules = new TaskRules(ctx, run);
  let eventsSeen = 0;
  let decisionsSeen = 0;
  let started = false;

  const guard = async (action: () => Promise<unknown>): Promise<void> => {
    await action();
    if (run.fatal !== undefined) throw run.fatal;
  };

  return {
    async step(step) {
      if (!started && isRecord(given.data) && !('emit' in step)) {
        started = true;
        await guard(() => run.startFromGiven());
      }
      if (isRecord(step.emit)) {
        started = true;
        const event = eventOf(step.emit as Spec, run);
        return guard(async () => {
          await run.emit(event);
          await rules.offer(event);
        });
      }
      if (typeof step.advance === 'string') {
        const advance = step.advance;
        if (advance.startsWith('until:')) {
          return guard(async () => {
            if (!(await run.advanceUntil(advance.slice(6)))) {
              throw new ScenarioFailure('unknown_timer', `no pending timer '${advance.slice(6)}'; pending: ${run.timers().map((t) => t.id).join(', ') || 'none'}`);
            }
          });
        }
        let span: number;
        try {
          span = milliseconds(advance);
        } catch (error) {
          throw new ScenarioFailure('invalid_step', (error as Error).message);
        }
        return guard(() => run.advance(span));
      }
      if (isRecord(step.complete)) {
        const c = step.complete;
        return guard(() => run.complete(String(c.step), typeof c.by === 'string' ? c.by : undefined, isRecord(c.output) ? c.output : undefined, c.cancel === true));
      }
      if (isRecord(step.approve)) return approve(run, step.approve);
      if (isRecord(step.settings)) {
        const values = step.settings;
        const problem = ctx.catalog.settingsSchema === undefined ? undefined : ctx.schemas.problem(ctx.catalog.settingsSchema, ctx.catalog.settingsWith(values));
        if (problem !== undefined) throw new ScenarioFailure('settings_invalid', `the settings do not match the package settings schema: ${problem}`);
        return guard(() => run.saveSettings(values));
      }
      if (isRecord(step.expect)) {
        const events = run.events.slice(eventsSeen);
        eventsSeen = run.events.length;
        const decisions = rules.decisions.slice(decisionsSeen);
        decisionsSeen = rules.decisions.length;
        expectOf(step.expect, run, events.map((e) => e.type), decisions);
      }
    },
    coverage(): ElementCoverage {
      const elements = coverageElements(processModel(process.spec));
      const missed = elements.filter((id) => !run.covered.has(id));
      const covered = elements.length - missed.length;
      return { covered, total: elements.length, percent: elements.length === 0 ? 100 : Math.round((covered / elements.length) * 1000) / 10, missed };
    },
  };
}

function eventOf(emit: Spec, run: ProcessRun): EngineEvent {
  const observation = typeof emit.observation === 'string';
  const event: EngineEvent = {
    type: String(observation ? emit.observation : emit.event),
    kind: observation ? 'observation' : 'event',
    time: run.clock.iso(),
    payload: isRecord(emit.payload) ? emit.payload : {},
  };
  if (typeof emit.by === 'string') event.actorId = emit.by;
  if (typeof emit.source === 'string') event.source = emit.source;
  if (typeof emit.task === 'string') {
    const task = [...run.tasks].reverse().find((t) => t.step === emit.task);
    if (task !== undefined) event.task = task.id;
  }
  return event;
}

async function approve(run: ProcessRun, approval: Spec): Promise<void> {
  const decision = approval.decision === 'reject' ? 'reject' : 'approve';
  const refused = await run.approve(String(approval.step), String(approval.by), decision);
  if (run.fatal !== undefined) throw run.fatal;
  if (typeof approval.expectRefused === 'string') {
    if (refused === approval.expectRefused) return;
    throw new ScenarioFailure('expectation_failed', `expected the core to refuse the vote of ${String(approval.by)} with ${approval.expectRefused}, ${refused === undefined ? 'and it counted it' : `and it refused it with ${refused}`}`, { expected: approval.expectRefused, actual: refused ?? 'counted' });
  }
  if (refused !== undefined) throw new ScenarioFailure('step_refused', `the core refuses the vote of ${String(approval.by)} on '${String(approval.step)}': ${refused}`, { actual: refused });
}

function fail(field: string, message: string, expected: unknown, actual: unknown): never {
  throw new ScenarioFailure('expectation_failed', `${field}: ${message}`, { expected, actual, path: field });
}

function expectOf(expect: Spec, run: ProcessRun, events: string[], decisions: TaskRuleDecision[]): void {
  if (typeof expect.status === 'string' && expect.status !== run.status) {
    const why = run.error ? ` (error ${run.error.type}${run.error.detail ? `: ${run.error.detail}` : ''})` : '';
    fail('status', `expected ${expect.status}, got ${run.status}${why}`, expect.status, run.status);
  }
  if (typeof expect.outcome === 'string' && expect.outcome !== run.outcome) {
    fail('outcome', `expected ${expect.outcome}, got ${run.outcome ?? 'none'} (status ${run.status})`, expect.outcome, run.outcome ?? null);
  }
  if (typeof expect.error === 'string' && expect.error !== run.error?.type) {
    fail('error', `expected ${expect.error}, got ${run.error?.type ?? 'no error'}`, expect.error, run.error?.type ?? null);
  }
  if (isRecord(expect.stages)) {
    for (const [id, state] of Object.entries(expect.stages)) {
      const actual = run.stageState(id);
      if (actual !== state) fail(`stages.${id}`, `expected ${String(state)}, got ${actual ?? `no stage '${id}'`}`, state, actual ?? null);
    }
  }
  if (Array.isArray(expect.milestones)) {
    const missing = expect.milestones.map(String).filter((id) => !run.milestones.has(id));
    if (missing.length > 0) fail('milestones', `expected ${missing.join(', ')} reached, reached: ${[...run.milestones].join(', ') || 'none'}`, expect.milestones, [...run.milestones]);
  }
  if (isRecord(expect.data)) {
    for (const [path, value] of Object.entries(expect.data)) {
      const actual = valueAt(run.data, path);
      if (!containsValue(value, actual)) fail(`data.${path}`, `expected ${show(value)}, got ${show(actual)}`, value, actual ?? null);
    }
  }
  if (Array.isArray(expect.tasks)) for (const wanted of expect.tasks.filter(isRecord)) expectTask(wanted, run.tasks);
  if (Array.isArray(expect.timers)) {
    const timers = run.timers();
    for (const wanted of expect.timers.filter(isRecord)) {
      if (!timers.some((timer) => containsValue(wanted, timer))) fail('timers', `expected a pending timer ${show(wanted)}, pending: ${show(timers)}`, wanted, timers);
    }
  }
  if (isRecord(expect.sla)) {
    for (const [key, state] of Object.entries(expect.sla)) {
      const actual = run.slaState(key);
      if (actual !== state) fail(`sla.${key}`, `expected ${String(state)}, got ${actual ?? `no deadline of '${key}'`}`, state, actual ?? null);
    }
  }
  if (Array.isArray(expect.events)) {
    let at = 0;
    for (const type of expect.events.map(String)) {
      const found = events.indexOf(type, at);
      if (found < 0) fail('events', `expected ${show(expect.events)} in order since the last expect, got ${show(events)}`, expect.events, events);
      at = found + 1;
    }
  }
  if (isRecord(expect.memory)) {
    const memory = expect.memory;
    if (Array.isArray(memory.recalled)) {
      const missing = memory.recalled.map(String).filter((step) => !run.recalled.includes(step));
      if (missing.length > 0) fail('memory.recalled', `expected recalls by ${missing.join(', ')}, got ${show(run.recalled)}`, memory.recalled, run.recalled);
    }
    if (Array.isArray(memory.remembered)) {
      for (const wanted of memory.remembered) {
        if (!run.remembered.some((entry) => containsValue(wanted, entry))) fail('memory.remembered', `expected ${show(wanted)}, remembered: ${show(run.remembered)}`, wanted, run.remembered);
      }
    }
  }
  if (expect.noSideEffects === true && run.sideEffects.length > 0) {
    fail('noSideEffects', `expected none, got calls of ${run.sideEffects.join(', ')} (they declare side effects)`, true, run.sideEffects);
  }
  checkRuleDecisions(expect.rules, decisions);
}

/** A task the author expects: by step, status (open tasks when not given), assignee, due and custom fields. */
function expectTask(wanted: Spec, tasks: readonly TaskRecord[]): void {
  const candidates = tasks.filter((task) => (wanted.step === undefined || task.step === wanted.step) && (wanted.status === undefined ? task.state === 'open' : wanted.status === task.status || wanted.status === task.state));
  const found = candidates.some((task) =>
    (wanted.assignee === undefined || wanted.assignee === task.assignee || wanted.assignee === task.via)
    && (wanted.due === undefined || containsValue(wanted.due, task.due))
    && (wanted.customFields === undefined || containsValue(wanted.customFields, task.customFields)));
  if (found) return;
  const open = tasks.filter((task) => task.state === 'open').map((task) => ({ step: task.step, status: task.status, assignee: task.assignee, due: task.due, customFields: task.customFields }));
  fail('tasks', `expected a task ${show(wanted)}, open tasks: ${open.length === 0 ? 'none' : show(open)}`, wanted, open);
}
