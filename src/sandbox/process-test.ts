/**
 * `subject: process` (the default): a scenario drives the sandbox — `emit`, `advance`, `complete`, `approve`,
 * `settings` — and `expect` compares what the first root instance shows with what the author expects. Only
 * the keys given are compared: lists as subsets (the tasks, milestones, timers, memory writes given must be
 * there), `events` as a multiset among the process events since the previous `expect`, `rules` among the
 * decisions of the package's task rules since then. A failed `expect` does not stop the scenario.
 */
import { processModel } from '../process/index.js';
import { coverageOf } from './coverage.js';
import { milliseconds } from './due.js';
import { slaState, type ProcessInstance, type TaskRecord } from './instance.js';
import { ScenarioFailure } from './result.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { checkRuleDecisions, TaskRules, type TaskRuleDecision } from './task-rules.js';
import { containsValue, sameInstant, show, valueAt } from './values.js';
import { Sandbox, type EmitSpec } from './world.js';
import { isRecord } from '../json/guards.js';

type Spec = Record<string, unknown>;

export function processRun(ctx: SubjectContext): SubjectRun {
  const key = String(ctx.test.process);
  const process = ctx.catalog.object('Process', key);
  if (process === undefined) throw new ScenarioFailure('unknown_subject', `process '${key}' — no such Process in the package`, { path: '/process' });
  const given = isRecord(ctx.test.given) ? ctx.test.given : {};
  refuseUnsupported(given);
  if (isRecord(given.settings)) checkSettings(ctx, given.settings, '/given/settings');
  const world = new Sandbox({ process, catalog: ctx.catalog, mocks: ctx.mocks, schemas: ctx.schemas, given, variables: ctx.variables });
  const rules = new TaskRules(ctx, world);
  if (isRecord(given.data)) world.startGiven(given.data);
  let eventsSeen = 0;
  let decisionsSeen = 0;

  return {
    step(step) {
      if (isRecord(step.emit)) {
        const emit = step.emit as EmitSpec;
        const event = world.emit(emit);
        rules.offer(event, emit.task);
        return;
      }
      if (typeof step.advance === 'string') return advance(world, step.advance);
      if (isRecord(step.complete)) {
        const c = step.complete;
        return world.complete(String(c.step), typeof c.by === 'string' ? c.by : undefined, isRecord(c.output) ? c.output : undefined, c.cancel === true);
      }
      if (isRecord(step.approve)) return approve(world, step.approve);
      if (isRecord(step.settings)) {
        checkSettings(ctx, step.settings, undefined);
        return world.saveSettings(step.settings);
      }
      if (isRecord(step.expect)) {
        const events = world.root?.instance.events ?? [];
        const since = events.slice(eventsSeen).map((event) => event.type);
        eventsSeen = events.length;
        const decisions = rules.decisions.slice(decisionsSeen);
        decisionsSeen = rules.decisions.length;
        return expectOf(step.expect, world, since, decisions);
      }
    },
    coverage: () => coverageOf(processModel(process.spec), world.coverageOf(process)),
  };
}

/** What the core's sandbox refuses in `given`: a stage to start in, a copy of a live instance. */
function refuseUnsupported(given: Spec): void {
  if (given.stage !== undefined) {
    throw new ScenarioFailure('given_not_supported', 'given.stage is not supported: the core starts an instance at its beginning — drive it to the stage with the scenario\'s steps', { path: '/given/stage' });
  }
  if (given.fromInstance !== undefined) {
    throw new ScenarioFailure('given_not_supported', 'given.fromInstance continues a copy of a live instance of a deployment: it cannot run offline (run the test with --server on that deployment)', { path: '/given/fromInstance' });
  }
}

/** Settings saved as an administrator saves them: the package must declare settings, and the values must fit their schema. */
function checkSettings(ctx: SubjectContext, values: Spec, path: string | undefined): void {
  const schema = ctx.catalog.settingsSchema;
  const where = path === undefined ? {} : { path };
  if (schema === undefined) {
    if (Object.keys(values).length > 0) throw new ScenarioFailure('settings_not_declared', 'the package declares no settings (spec.settings of the manifest), so none can be saved', where);
    return;
  }
  const problem = ctx.schemas.problem(schema, ctx.catalog.settingsWith(values));
  if (problem !== undefined) throw new ScenarioFailure('settings_invalid', `the settings do not match the package settings schema: ${problem}`, where);
}

function advance(world: Sandbox, advance: string): void {
  if (advance.startsWith('until:')) {
    const name = advance.slice(6);
    if (!world.advanceUntil(name)) {
      throw new ScenarioFailure('unknown_timer', `no pending timer '${name}'; pending: ${world.pendingTimers().map((t) => t.id).join(', ') || 'none'}`);
    }
    return;
  }
  let span: number;
  try {
    span = milliseconds(advance);
  } catch (error) {
    throw new ScenarioFailure('invalid_step', (error as Error).message);
  }
  if (span < 0) throw new ScenarioFailure('invalid_step', `advance: ${advance} goes back in time`);
  world.advance(world.clock + span);
}

function approve(world: Sandbox, approval: Spec): ScenarioFailure[] {
  const decision = approval.decision === 'reject' ? 'reject' : 'approve';
  const refused = world.approve(String(approval.step), String(approval.by), decision);
  if (typeof approval.expectRefused === 'string') {
    if (refused === approval.expectRefused) return [];
    return [new ScenarioFailure('expectation_failed', `expected the core to refuse the vote of ${String(approval.by)} with ${approval.expectRefused}, ${refused === undefined ? 'and it counted it' : `and it refused it with ${refused}`}`, { expected: approval.expectRefused, actual: refused ?? 'counted' })];
  }
  if (refused !== undefined) throw new ScenarioFailure('step_refused', `the core refuses the vote of ${String(approval.by)} on '${String(approval.step)}': ${refused}`, { actual: refused });
  return [];
}

function failure(field: string, message: string, expected: unknown, actual: unknown): ScenarioFailure {
  return new ScenarioFailure('expectation_failed', `${field}: ${message}`, { expected, actual, path: field });
}

/** The state a scenario sees of a stage: open, completed, not started while the instance runs, skipped once it closed. */
function stageState(instance: ProcessInstance, id: string): string | undefined {
  const run = instance.stages.find((s) => s.stage.id === id);
  if (run === undefined) return undefined;
  if (run.state === 'active') return 'open';
  if (run.state === 'completed') return 'completed';
  return instance.isLive() ? 'not_started' : 'skipped';
}

/** The SLA state of a deadline: of the process or of a step's open attempt; a closed instance's as it was at its close. */
function slaOf(instance: ProcessInstance, key: string): string {
  if (instance.slaAtClose !== undefined) return instance.slaAtClose.get(key) ?? 'none';
  const record = key === 'process' ? instance.processSla : instance.sla.get(key);
  return record === undefined || !record.open ? 'none' : slaState(instance, record);
}

function expectOf(expect: Spec, world: Sandbox, events: string[], decisions: TaskRuleDecision[]): ScenarioFailure[] {
  const instance = world.root?.instance;
  const failures: ScenarioFailure[] = [];
  const status = instance?.status ?? 'not_started';
  const waiting = world.waitingNotes().map((note) => `; ${note}`).join('');
  if (typeof expect.status === 'string' && expect.status !== status) {
    const why = instance?.error ? ` (error ${instance.error.type}${instance.error.detail ? `: ${instance.error.detail}` : ''})` : '';
    failures.push(failure('status', `expected ${expect.status}, got ${status}${why}${waiting}`, expect.status, status));
  }
  if (typeof expect.outcome === 'string' && expect.outcome !== instance?.outcome) {
    failures.push(failure('outcome', `expected ${expect.outcome}, got ${instance?.outcome ?? 'none'} (status ${status})`, expect.outcome, instance?.outcome ?? null));
  }
  if (typeof expect.error === 'string' && expect.error !== instance?.error?.type) {
    failures.push(failure('error', `expected ${expect.error}, got ${instance?.error?.type ?? 'no error'}`, expect.error, instance?.error?.type ?? null));
  }
  if (isRecord(expect.stages)) {
    for (const [id, state] of Object.entries(expect.stages)) {
      const actual = instance === undefined ? 'not_started' : stageState(instance, id);
      if (actual !== state) failures.push(failure(`stages.${id}`, `expected ${String(state)}, got ${actual ?? `no stage '${id}'`}${waiting}`, state, actual ?? null));
    }
  }
  if (Array.isArray(expect.milestones)) {
    const reached = instance === undefined ? [] : [...instance.milestones].filter(([, holds]) => holds).map(([id]) => id);
    const missing = expect.milestones.map(String).filter((id) => !reached.includes(id));
    if (missing.length > 0) failures.push(failure('milestones', `expected ${missing.join(', ')} reached, reached: ${reached.join(', ') || 'none'}`, expect.milestones, reached));
  }
  if (isRecord(expect.data)) {
    for (const [path, value] of Object.entries(expect.data)) {
      const actual = valueAt(instance?.data ?? {}, path);
      if (!containsValue(value, actual)) failures.push(failure(`data.${path}`, `expected ${show(value)}, got ${show(actual)}`, value, actual ?? null));
    }
  }
  if (Array.isArray(expect.tasks)) {
    for (const wanted of expect.tasks.filter(isRecord)) {
      const missing = taskMissing(wanted, world, instance);
      if (missing !== undefined) failures.push(missing);
    }
  }
  if (Array.isArray(expect.timers)) failures.push(...timersMissing(expect.timers.filter(isRecord), instance));
  if (isRecord(expect.sla)) {
    for (const [key, state] of Object.entries(expect.sla)) {
      const actual = instance === undefined ? 'none' : slaOf(instance, key);
      if (actual !== state) failures.push(failure(`sla.${key}`, `expected ${String(state)}, got ${actual}`, state, actual));
    }
  }
  if (Array.isArray(expect.events)) {
    const left = [...events];
    const missing = expect.events.map(String).filter((type) => {
      const at = left.indexOf(type);
      if (at >= 0) left.splice(at, 1);
      return at < 0;
    });
    if (missing.length > 0) failures.push(failure('events', `expected ${show(expect.events)} among the events since the last expect, missing ${show(missing)}; got ${show(events)}`, expect.events, events));
  }
  if (isRecord(expect.memory)) failures.push(...memoryMissing(expect.memory, instance));
  if (expect.noSideEffects === true && world.sideEffects.length > 0) {
    failures.push(failure('noSideEffects', `expected none, got calls of ${world.sideEffects.join(', ')} (they declare side effects)`, true, world.sideEffects));
  }
  const rules = checkRuleDecisions(expect.rules, decisions);
  if (rules !== undefined) failures.push(rules);
  return failures;
}

/** A task the author expects, of the root instance: by step, status (open ones when not given), assignee, due, custom fields. */
function taskMissing(wanted: Spec, world: Sandbox, instance: ProcessInstance | undefined): ScenarioFailure | undefined {
  const tasks = world.tasks.filter((task) => task.instance === instance?.id);
  const found = tasks.some((task) =>
    (wanted.step === undefined || task.step === wanted.step)
    && (wanted.status === undefined ? task.state === 'open' : wanted.status === task.state || wanted.status === task.status)
    && (wanted.assignee === undefined || assigneeMatches(world, task, String(wanted.assignee)))
    && (wanted.due === undefined || (typeof wanted.due === 'string' && task.due !== undefined && sameInstant(wanted.due, task.due)) || wanted.due === task.due)
    && (wanted.customFields === undefined || containsValue(wanted.customFields, task.customFields)));
  if (found) return undefined;
  const open = tasks.filter((task) => task.state === 'open').map((task) => ({ step: task.step, status: task.status, assignee: task.assignee, due: task.due, customFields: task.customFields }));
  const skipped = typeof wanted.step === 'string' ? instance?.skipped.get(wanted.step) : undefined;
  const why = skipped === undefined ? '' : `; step '${String(wanted.step)}' was skipped: ${skipped}`;
  return failure('tasks', `expected a task ${show(wanted)}, open tasks: ${open.length === 0 ? 'none' : show(open)}${why}`, wanted, open);
}

/** The expected assignee is the task's (a principal, a role, an agent), a person who holds its role, or who closed it. */
function assigneeMatches(world: Sandbox, task: TaskRecord, assignee: string): boolean {
  if (assignee === task.assignee || assignee === task.assigneeId) return true;
  if (!task.assignee.startsWith('role:') || assignee.startsWith('role:')) return false;
  return world.given.principals?.[task.assignee.slice(5)]?.includes(assignee) === true;
}

/** Pending timers the author expects: `id` (a timer id or its element), `at`, `provisional`. */
function timersMissing(wanted: Spec[], instance: ProcessInstance | undefined): ScenarioFailure[] {
  const pending = [...(instance?.timers ?? [])].sort((a, b) => a.at - b.at || a.no - b.no).map((timer) => ({
    id: timer.id, element: timer.element, at: new Date(timer.at).toISOString(), provisional: timer.provisional,
  }));
  return wanted.filter((timer) => !pending.some((p) =>
    (timer.id === undefined || timer.id === p.id || timer.id === p.element)
    && (timer.at === undefined || (typeof timer.at === 'string' && sameInstant(timer.at, p.at)) || timer.at === p.at)
    && (timer.provisional === undefined || timer.provisional === p.provisional)))
    .map((timer) => failure('timers', `expected a pending timer ${show(timer)}, pending: ${show(pending.map(({ id, at, provisional }) => ({ id, at, provisional })))}`, timer, pending));
}

function memoryMissing(memory: Spec, instance: ProcessInstance | undefined): ScenarioFailure[] {
  const failures: ScenarioFailure[] = [];
  const recalled = instance?.recalled ?? [];
  const remembered = instance?.remembered ?? [];
  if (Array.isArray(memory.recalled)) {
    const missing = memory.recalled.map(String).filter((step) => !recalled.includes(step));
    if (missing.length > 0) failures.push(failure('memory.recalled', `expected recalls answered for ${missing.join(', ')}, got ${show(recalled)}`, memory.recalled, recalled));
  }
  if (Array.isArray(memory.remembered)) {
    for (const wanted of memory.remembered) {
      if (!remembered.some((entry) => containsValue(wanted, entry))) failures.push(failure('memory.remembered', `expected ${show(wanted)}, remembered: ${show(remembered)}`, wanted, remembered));
    }
  }
  return failures;
}
