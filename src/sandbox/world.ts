/**
 * The sandbox of a process test, as the core's `process_sandbox.py` runs one: a virtual clock, the instances
 * (the roots a scenario starts, the children their calls start — nested processes run for real), and the
 * intents of their engines carried out in memory — tasks and who may act on them, approvals, skills and agents
 * answered by the test's mocks, recalls. Every answer is an input of its own, after the one that asked.
 *
 * The scenario drives it: `emit` (a start trigger starts a root instance or correlates the one with its key;
 * every other open instance gets the event), `advance` (timers fire in order of their moment, then of their
 * instance and number), `complete`, `approve`, `settings`.
 */
import type { InstallVariable } from '../cel/index.js';
import type { PackageObject } from '../model/package.js';
import { linkFor, requestRefusal, verdict, type ApprovalRequest } from './approvals.js';
import type { Catalog } from './catalog.js';
import { Coverage } from './coverage.js';
import { ProcessEngine } from './engine.js';
import {
  DEFAULT_CLOCK,
  type Activity, type Answer, type EngineEvent, type ProcessGiven, type ProcessInstance, type Refusal, type TaskRecord, type TaskRequest, type TimerRecord, type World,
} from './instance.js';
import type { MockAnswer, MockBook } from './mocks.js';
import { ScenarioFailure } from './result.js';
import type { SchemaChecker } from './schemas.js';
import { copy, records } from './values.js';
import { isRecord } from '../json/guards.js';

/** The core's bound on the inputs of one test. */
const INPUT_LIMIT = 5_000;

export interface SandboxOptions {
  /** The process under test: a scenario's start events start instances of it. */
  process: PackageObject;
  catalog: Catalog;
  mocks: MockBook;
  schemas: SchemaChecker;
  given: ProcessGiven;
  variables: Record<string, InstallVariable>;
}

/** What a scenario's `emit` gives. */
export interface EmitSpec {
  event?: string;
  observation?: string;
  source?: string;
  payload?: Record<string, unknown>;
  by?: string;
  /** The step whose newest task an observation is bound to. */
  task?: string;
}

export class Sandbox implements World {
  clock: number;
  settings: Record<string, unknown>;
  readonly catalog: Catalog;
  readonly schemas: SchemaChecker;
  readonly variables: Record<string, InstallVariable>;
  readonly given: ProcessGiven;
  /** Every instance, in the order it started. */
  readonly engines: ProcessEngine[] = [];
  readonly tasks: TaskRecord[] = [];
  /** Skills with side effects (`sideEffects` other than none) the scenario's instances called. */
  readonly sideEffects: string[] = [];
  /** What the instances of each process covered. */
  readonly coverage = new Map<PackageObject, Coverage>();
  private readonly mocks: MockBook;
  private readonly process: PackageObject;
  private readonly byInstance = new Map<ProcessInstance, ProcessEngine>();
  private readonly queue: (() => void)[] = [];
  private inputs = 0;
  private counters = { event: 0, task: 0, instance: 0 };
  private probe?: ProcessEngine;

  constructor(options: SandboxOptions) {
    this.process = options.process;
    this.catalog = options.catalog;
    this.mocks = options.mocks;
    this.schemas = options.schemas;
    this.given = options.given;
    this.variables = options.variables;
    this.clock = options.given.clock === undefined ? DEFAULT_CLOCK : Date.parse(options.given.clock);
    this.settings = options.catalog.settingsWith(options.given.settings);
  }

  /** The instance a scenario inspects: the first root instance. */
  get root(): ProcessEngine | undefined {
    return this.engines.find((engine) => engine.instance.parent === undefined);
  }

  coverageOf(process: PackageObject): Coverage {
    let coverage = this.coverage.get(process);
    if (coverage === undefined) this.coverage.set(process, (coverage = new Coverage()));
    return coverage;
  }

  // ---------------------------------------------------------------- the scenario

  /** `given.data`: one root instance, key `test`, started with that data (no `start.set`). */
  startGiven(data: Record<string, unknown>): void {
    const problem = this.dataProblem(this.process, data);
    if (problem !== undefined) throw new ScenarioFailure('invalid_process_data', `given.data does not match spec.data of process '${this.process.key}': ${problem}`, { path: '/given/data' });
    const engine = this.newEngine(this.process);
    this.feed(() => engine.start('test', copy(data)));
  }

  emit(spec: EmitSpec): EngineEvent {
    const event = this.eventOf(spec);
    this.probe ??= new ProcessEngine(this, this.process, 'probe', new Coverage());
    const key = this.probe.startKey(event);
    let taken: ProcessEngine | undefined;
    if (key !== undefined) {
      taken = this.engines.find((engine) => engine.instance.process === this.process && engine.instance.parent === undefined && engine.instance.key === key);
      if (taken !== undefined) {
        const engine = taken;
        this.feed(() => engine.event(event, true));
      } else {
        const engine = (taken = this.newEngine(this.process));
        this.feed(() => engine.start(key, {}, event));
      }
    }
    for (const engine of [...this.engines]) {
      if (engine !== taken && engine.instance.isLive()) this.feed(() => engine.event(event));
    }
    return event;
  }

  private eventOf(spec: EmitSpec): EngineEvent {
    const payload = isRecord(spec.payload) ? copy(spec.payload) : {};
    const observation = typeof spec.observation === 'string';
    if (observation && typeof spec.task === 'string') {
      const task = this.newestTask(spec.task);
      if (task !== undefined) payload.taskId = task.id;
    }
    return {
      id: `event-${++this.counters.event}`,
      type: observation ? 'observation.recorded' : String(spec.event),
      kind: observation ? 'observation' : 'event',
      ...(observation ? { observation: String(spec.observation) } : {}),
      time: new Date(this.clock).toISOString(),
      payload,
      ...(typeof spec.by === 'string' ? { actorId: spec.by } : {}),
      ...(typeof spec.source === 'string' ? { source: spec.source } : {}),
    };
  }

  /** Moves the clock to `target`, firing every timer due on the way in order. */
  advance(target: number): void {
    for (;;) {
      const next = this.pendingTimers()[0];
      if (next === undefined || next.at > target) break;
      this.clock = Math.max(this.clock, next.at);
      const engine = this.engineOf(next.instance);
      this.feed(() => engine.fireTimer(next));
    }
    this.clock = Math.max(this.clock, target);
  }

  /** `advance: until:<name>`: to the earliest pending timer with that id (or of that element); false when there is none. */
  advanceUntil(name: string): boolean {
    const pending = this.pendingTimers();
    const timer = pending.find((t) => t.id === name) ?? pending.find((t) => t.element === name);
    if (timer === undefined) return false;
    this.advance(timer.at);
    return true;
  }

  /** The timers that count now, in the order they fire: moment, instance, number. */
  pendingTimers(): TimerRecord[] {
    return this.engines.flatMap((engine, index) => [...engine.instance.timers].filter((t) => t.remaining === undefined).map((timer) => ({ timer, index })))
      .sort((a, b) => a.timer.at - b.timer.at || a.index - b.index || a.timer.no - b.timer.no)
      .map(({ timer }) => timer);
  }

  /** `complete`: the newest open task of the step, closed by `by` with `output` over its prefill, or cancelled. */
  complete(step: string, by: string | undefined, output: Record<string, unknown> | undefined, cancel: boolean): void {
    const task = this.openTask(step);
    if (by !== undefined && !this.holds(task.assignee, by)) {
      throw new ScenarioFailure('not_assignee', `${by} may not complete the task of step '${step}': it is assigned to ${task.assignee}${this.holdersOf(task.assignee)}`);
    }
    const fields = { ...task.customFields, ...(output ?? {}) };
    if (!cancel) {
      const schema = this.catalog.spec('TaskType', task.taskType)?.fieldSchema;
      const problem = schema === undefined ? undefined : this.schemas.problem(schema, fields);
      if (problem !== undefined) throw new ScenarioFailure('output_invalid', `the output of step '${step}' does not match the fieldSchema of task type '${task.taskType}': ${problem}`);
    }
    this.closeTask(task, cancel, by, fields);
  }

  /** A work rule closes the task an observation is bound to: no output (the prefill stays), no check of who may. */
  closeByRule(task: TaskRecord, cancel: boolean): void {
    this.closeTask(task, cancel, undefined, task.customFields);
  }

  private closeTask(task: TaskRecord, cancel: boolean, by: string | undefined, fields: Record<string, unknown>): void {
    const activity = this.activityOf((a) => a.task === task);
    if (cancel) this.cancelTask(task);
    else {
      task.customFields = fields;
      task.state = 'completed';
      task.status = this.lifecycleStatus(task.taskType, 'terminal_success', 'completionStatus') ?? 'done';
    }
    task.assigneeId = by ?? task.assignee;
    if (activity === undefined) return;
    const engine = this.engineOf(activity.instance);
    this.feed(() => engine.answer(activity, { kind: 'task', task, cancelled: cancel }));
  }

  /** A vote on the newest open approval of a step; the core's refusal code when it refuses it. */
  approve(step: string, by: string, decision: 'approve' | 'reject'): string | undefined {
    const activity = this.activityOf((a) => a.kind === 'approve' && a.step.id === step && a.approval !== undefined, true);
    if (activity === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open approval${this.whyNotOpen(step)}`);
    const request = activity.approval!;
    const link = linkFor(request, by, (role, person) => this.holds(`role:${role}`, person));
    if (typeof link !== 'number') return link.refused;
    request.votes[link] = { by, decision };
    const outcome = verdict(request);
    const engine = this.engineOf(activity.instance);
    this.feed(() => (outcome === undefined ? engine.input(() => undefined) : engine.answer(activity, { kind: 'approval', outcome })));
    return undefined;
  }

  saveSettings(values: Record<string, unknown>): void {
    this.settings = this.catalog.settingsWith(values);
  }

  /** The newest open task of a step; a scenario that acts on a step without one cannot go on. */
  openTask(step: string): TaskRecord {
    const task = [...this.tasks].reverse().find((t) => t.step === step && t.state === 'open');
    if (task === undefined) throw new ScenarioFailure('step_not_waiting', `step '${step}' has no open task${this.whyNotOpen(step)}`);
    return task;
  }

  private newestTask(step: string): TaskRecord | undefined {
    return [...this.tasks].reverse().find((t) => t.step === step);
  }

  /** Why a step has nothing open, as far as the root instance tells: skipped by its guard, work that waits on what the test does not give, closed. */
  whyNotOpen(step: string): string {
    const instance = this.root?.instance;
    if (instance === undefined) return ': no instance has started';
    const skipped = instance.skipped.get(step);
    const open = this.tasks.filter((t) => t.state === 'open').map((t) => t.step);
    const parts = [
      skipped !== undefined ? `it was skipped: ${skipped}` : undefined,
      `open tasks: ${open.length === 0 ? 'none' : open.join(', ')}`,
      ...this.waitingNotes(),
      instance.isLive() ? undefined : `the instance is ${instance.status}${instance.error ? ` (${instance.error.type}${instance.error.detail ? `: ${instance.error.detail}` : ''})` : ''}`,
    ];
    return `; ${parts.filter((part) => part !== undefined).join('; ')}`;
  }

  /** Steps of any instance that wait on something the test does not give: an unmocked skill, a refused intent. */
  waitingNotes(): string[] {
    return this.engines.flatMap((engine) => [...engine.instance.activities])
      .filter((activity) => activity.waitingFor !== undefined)
      .map((activity) => `step '${activity.step.id}' waits for ${activity.waitingFor}`);
  }

  // ---------------------------------------------------------------- the world of the engines

  later(instance: ProcessInstance, answer: () => void): void {
    const engine = this.engineOf(instance);
    this.queue.push(() => engine.input(answer));
  }

  private answerLater(activity: Activity, answer: Answer): void {
    const engine = this.engineOf(activity.instance);
    this.queue.push(() => engine.answer(activity, answer));
  }

  createTask(activity: Activity, request: TaskRequest): TaskRecord | Refusal {
    const assignee = this.resolve(request.candidates);
    if (typeof assignee !== 'string') return assignee;
    const schema = request.taskType === '' ? undefined : this.catalog.spec('TaskType', request.taskType)?.fieldSchema;
    const problem = schema === undefined ? undefined : this.schemas.problem(schema, request.customFields);
    if (problem !== undefined) return { refused: `custom_fields_invalid: ${problem}` };
    const task: TaskRecord = {
      id: `task-${++this.counters.task}`, step: activity.step.id, instance: activity.instance.id,
      taskType: request.taskType, title: request.title, assignee, state: 'open',
      status: this.lifecycleStatus(request.taskType, undefined, 'initialStatus') ?? 'todo',
      customFields: copy(request.customFields),
      ...(request.due !== undefined ? { due: request.due } : {}),
      ...(request.input !== undefined ? { input: request.input } : {}),
    };
    this.tasks.push(task);
    return task;
  }

  cancelTask(task: TaskRecord): void {
    if (task.state !== 'open') return;
    task.state = 'cancelled';
    task.status = this.lifecycleStatus(task.taskType, 'terminal_cancelled') ?? 'cancelled';
  }

  reassignTask(task: TaskRecord, candidates: readonly (string | null)[]): void {
    const assignee = this.resolve(candidates);
    if (typeof assignee === 'string') task.assignee = assignee;
  }

  requestApprovals(request: ApprovalRequest, excludedAsWritten: readonly unknown[]): Refusal | undefined {
    const refusal = requestRefusal(request, excludedAsWritten);
    return refusal === undefined ? undefined : { refused: refusal };
  }

  invokeSkill(activity: Activity, skill: string, input: Record<string, unknown>): Refusal | undefined {
    const spec = this.catalog.spec('Skill', skill);
    if (spec === undefined || spec.status === 'disabled') return { refused: 'unknown_skill' };
    const contract = isRecord(spec.contract) ? spec.contract : {};
    const problem = contract.inputs === undefined ? undefined : this.schemas.problem(contract.inputs, input);
    if (problem !== undefined) return { refused: `invalid_skill_inputs: ${problem}` };
    if (spec.sideEffects !== undefined && spec.sideEffects !== 'none') this.sideEffects.push(skill);
    const answer = this.mocks.answer('skills', skill, activity.step.id, input);
    if (!this.answered(activity, answer, `skill ${skill}`, 'mocks.skills')) return undefined;
    if (answer!.error !== undefined) {
      this.answerLater(activity, { kind: 'error', problem: { ...answer!.error } });
      return undefined;
    }
    const outputProblem = contract.outputs === undefined ? undefined : this.schemas.problem(contract.outputs, answer!.output);
    if (outputProblem !== undefined) {
      throw new ScenarioFailure('mock_output_invalid', `the mocked output of ${skill} breaks the skill's output schema: ${outputProblem}`, { path: answer!.pointer, actual: answer!.output });
    }
    this.answerLater(activity, { kind: 'result', output: copy(answer!.output) });
    return undefined;
  }

  invokeAgent(activity: Activity, agent: string, request: TaskRequest, input: Record<string, unknown>): TaskRecord | Refusal {
    const task = this.createTask(activity, request);
    if (!('id' in task)) return task;
    task.input = input;
    const answer = this.mocks.answer('agents', agent, activity.step.id, input);
    if (!this.answered(activity, answer, `agent ${agent}`, 'mocks.agents')) return task;
    this.queue.push(() => {
      if (task.state !== 'open') return;
      if (answer!.error !== undefined) this.closeTask(task, true, `agent:${agent}`, task.customFields);
      else this.closeTask(task, false, `agent:${agent}`, isRecord(answer!.output) ? copy(answer!.output) : { result: copy(answer!.output) });
    });
    return task;
  }

  recall(activity: Activity, query: Record<string, unknown>): void {
    const answer = this.mocks.answer('recall', '', activity.step.id, query);
    if (!this.answered(activity, answer, 'memory', 'mocks.recall')) return;
    if (answer!.error !== undefined) this.answerLater(activity, { kind: 'error', problem: { ...answer!.error } });
    else this.answerLater(activity, { kind: 'result', output: copy(answer!.output) });
  }

  /** Whether a mock answers; when none does (or it times out), the activity notes what it waits for. */
  private answered(activity: Activity, answer: MockAnswer | undefined, what: string, where: string): boolean {
    if (answer === undefined) activity.waitingFor = `${what}, which the test does not answer (${where})`;
    else if (answer.timeout === true) activity.waitingFor = `${what}, whose mock answers with a timeout`;
    return answer !== undefined && answer.timeout !== true;
  }

  startChild(activity: Activity, process: string, data: Record<string, unknown>): Refusal | undefined {
    const definition = this.catalog.object('Process', process);
    if (definition === undefined) return { refused: 'not_found' };
    const problem = this.dataProblem(definition, data);
    if (problem !== undefined) return { refused: `invalid_process_data: ${problem}` };
    const engine = this.newEngine(definition, activity);
    activity.child = engine.instance;
    this.queue.push(() => engine.start(`${activity.instance.key}/${activity.step.id}`, copy(data)));
    return undefined;
  }

  cancelChild(child: ProcessInstance): void {
    const engine = this.engineOf(child);
    this.queue.push(() => engine.cancel());
  }

  closed(instance: ProcessInstance): void {
    const call = instance.parent;
    if (call !== undefined) this.answerLater(call, { kind: 'child', child: instance });
  }

  // ---------------------------------------------------------------- inside

  private newEngine(process: PackageObject, parent?: Activity): ProcessEngine {
    const engine = new ProcessEngine(this, process, `instance-${++this.counters.instance}`, this.coverageOf(process), parent);
    this.engines.push(engine);
    this.byInstance.set(engine.instance, engine);
    return engine;
  }

  private engineOf(instance: ProcessInstance): ProcessEngine {
    return this.byInstance.get(instance)!;
  }

  /** One input, then the answers it caused, each an input of its own, in order. */
  private feed(input: () => void): void {
    this.count();
    input();
    while (this.queue.length > 0) {
      this.count();
      this.queue.shift()!();
    }
  }

  private count(): void {
    if (++this.inputs > INPUT_LIMIT) throw new ScenarioFailure('input_limit_exceeded', `the test gave its instances more than ${INPUT_LIMIT} inputs`);
  }

  /** The newest open activity that fits, of any instance (`open` only: an activity still waiting). */
  private activityOf(fits: (activity: Activity) => boolean, newest = false): Activity | undefined {
    const all = this.engines.flatMap((engine) => [...engine.instance.activities]).filter(fits);
    return newest ? all.at(-1) : all[0];
  }

  /**
   * The first candidate of a chain that resolves — a principal; an agent the catalog knows; a role the catalog
   * or `given.principals` knows — else the refusal of the first that did not.
   */
  private resolve(candidates: readonly (string | null)[]): string | Refusal {
    let refusal: string | undefined;
    for (const candidate of candidates) {
      if (candidate === null) continue;
      if (candidate.startsWith('agent:')) {
        if (this.catalog.object('Agent', candidate.slice(6)) !== undefined) return candidate;
        refusal ??= 'unknown_agent';
      } else if (candidate.startsWith('role:')) {
        const role = candidate.slice(5);
        if (this.catalog.object('Role', role) !== undefined || this.given.principals?.[role] !== undefined) return candidate;
        refusal ??= 'unknown_role';
      } else {
        return candidate;
      }
    }
    return { refused: refusal ?? 'invalid_assignment' };
  }

  /** Whether `by` holds work assigned to `assignee`: that principal or agent, or a holder of that role (anyone, for a role the test names nobody for). */
  holds(assignee: string, by: string): boolean {
    if (assignee === by) return true;
    if (!assignee.startsWith('role:')) return false;
    const holders = this.given.principals?.[assignee.slice(5)];
    return holders === undefined || holders.includes(by);
  }

  private holdersOf(assignee: string): string {
    const holders = assignee.startsWith('role:') ? this.given.principals?.[assignee.slice(5)] : undefined;
    return holders === undefined ? '' : ` (held by ${holders.join(', ') || 'nobody'})`;
  }

  private dataProblem(process: PackageObject, data: Record<string, unknown>): string | undefined {
    const schema = this.catalog.dataSchema(process);
    return schema === undefined ? undefined : this.schemas.problem(schema, data);
  }

  /** A status of a task type's lifecycle: its `field` (`initialStatus`, …), else the first status of `category`. */
  private lifecycleStatus(taskType: string, category?: string, field?: string): string | undefined {
    const lifecycle = taskType === '' ? undefined : this.catalog.spec('TaskType', taskType)?.lifecycleSchema;
    if (!isRecord(lifecycle)) return undefined;
    if (field !== undefined && typeof lifecycle[field] === 'string') return lifecycle[field];
    return records(lifecycle.statuses).find((s) => s.category === category)?.key as string | undefined;
  }
}
