/**
 * Reachability in processes as the core judges it (compat-core-validators.md §2.14): steps after a step that
 * always ends the flow, guards that can never become true (a stage's exit, a milestone's when), stages that can
 * never be entered — and, beyond the core, processes with outcomes whose stages can all run out of work without
 * reaching one (a warning). docs/analysis.md states the exact rules.
 */
import { checkExpression, createEnvironment, evaluate, type CelEnvironment, type CheckResult } from '../../cel/index.js';
import type { PackageObject } from '../../model/package.js';
import {
  dataWrites, fieldTestOf, lookupDataField, writtenPaths, processDataSchema, processModel,
  type Block, type FieldTest, type ProcessModel, type Stage, type Step,
} from '../../process/index.js';
import { defineObjectRule, type ObjectContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

export const processReachability = defineObjectRule({
  id: 'process/reachability',
  description: 'Every step, stage and milestone of a process can be reached, every stage can end, and a process with outcomes cannot run out of work without one.',
  codes: {
    unreachable_step: {
      severity: 'error',
      core: true,
      summary: 'A step comes after a complete or raise step without when in the same block: that step always ends the flow.',
      message: (d: { step: string; after: string; kind: string }) => `step '${d.step}' comes after ${d.kind} step '${d.after}', which always ends the flow`,
    },
    unreachable_stage: {
      severity: 'error',
      core: true,
      summary: 'The entry guard of a stage can never hold: it is never true, or reads only stages that cannot be entered and data nothing writes.',
      message: (d: { stage: string }) => `stage '${d.stage}' can never be entered`,
    },
    unreachable_milestone: {
      severity: 'warning',
      core: true,
      summary: 'The when of a milestone can never become true: it is false by itself, or reads only data fields nothing writes.',
      message: (d: { milestone: string }) => `milestone '${d.milestone}' can never be reached: its when can never become true`,
    },
    dead_end: {
      severity: 'error',
      core: true,
      summary: 'The exit guard of a stage can never become true (false by itself, or reading only data nothing writes): the stage never ends.',
      message: () => 'the exit guard can never become true: the stage never ends',
    },
    ends_without_outcome: {
      severity: 'warning',
      summary: 'A process with outcomes (complete steps) can run out of work without completing.',
      message: (d: { witness: string }) => `an instance can finish all its stages without reaching a complete step: ${d.witness}`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const model = processModel(process.spec);
    reportUnreachableSteps(context, process, model.blocks);
    new StageFlow(context, process, model).run();
  },
});

type Context = ObjectContext<(typeof processReachability)['codes']>;

/** A step that ends the flow whatever the data: `complete` or `raise` without `when` (a `do` holding one does not count). */
function endsTheFlow(step: Step): boolean {
  return step.when === undefined && (step.kind === 'complete' || step.kind === 'raise');
}

/** In every block, each step after one that ends the flow, at its own path. */
function reportUnreachableSteps(context: Context, process: PackageObject, blocks: readonly Block[]): void {
  for (const block of blocks) {
    const end = block.steps.find(endsTheFlow);
    if (end === undefined) continue;
    block.items.forEach((item, index) => {
      if (index <= end.index) return;
      const id = isRecord(item) && typeof item.id === 'string' ? item.id : '?';
      context.report('unreachable_step', { document: process.document, pointer: `${block.pointer}/${index}` }, { step: id, after: end.id || '?', kind: end.kind }, {
        hint: `remove the steps after '${end.id}', or give '${end.id}' a when`,
      });
    });
  }
}

/** Guards read without types: a process environment with every variable untyped, shared by all. */
let untyped: CelEnvironment | undefined;

function guardReads(source: string): CheckResult {
  untyped ??= createEnvironment({ kind: 'process' });
  return checkExpression(untyped, source);
}

class StageFlow {
  private readonly isWritten: (path: readonly string[]) => boolean;

  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly model: ProcessModel,
  ) {
    this.isWritten = writtenPaths(dataWrites(model));
  }

  run(): void {
    const place = (pointer: string) => ({ document: this.process.document, pointer });
    const reachable = this.reachableStages();
    for (const stage of this.model.stages) {
      if (stage.id === '') continue;
      if (!reachable.has(stage.id)) {
        this.context.report('unreachable_stage', place(`${stage.pointer}/entry`), { stage: stage.id }, {
          hint: 'its entry must read something that changes: an event, a milestone, a stage that can be entered, or data something writes',
        });
      }
      if (stage.exit !== undefined && this.neverTrue(stage.exit)) {
        this.context.report('dead_end', place(`${stage.pointer}/exit`), undefined, { hint: 'let the exit read something that changes, or remove it' });
      }
      for (const milestone of stage.milestones) {
        if (milestone.when !== undefined && this.neverTrue(milestone.when)) {
          this.context.report('unreachable_milestone', place(`${milestone.pointer}/when`), { milestone: milestone.id }, {
            hint: 'let the when read something that changes, or remove the milestone',
          });
        }
      }
    }
    new OutcomeCheck(this.context, this.process, this.model, reachable).run();
  }

  /** Never true: it reads nothing and is false, or every variable it reads is a data field nothing writes. */
  private neverTrue(source: string): boolean {
    const reads = guardReads(source);
    if (reads.roots.size === 0) return falseByItself(source);
    return [...reads.roots].every((root) => root === 'data') && reads.paths.every((read) => read.root === 'data' && !this.isWritten(read.path));
  }

  /**
   * Stages that can be entered, grown to a fixpoint: one without an entry; one whose entry is not never true and
   * reads a stage that can be entered, or any variable but data, or a data field something writes.
   */
  private reachableStages(): Set<string> {
    const reachable = new Set<string>();
    const stages = this.model.stages.filter((stage) => stage.id !== '');
    for (let changed = true; changed;) {
      changed = false;
      for (const stage of stages) {
        if (reachable.has(stage.id) || !this.canEnter(stage, reachable)) continue;
        reachable.add(stage.id);
        changed = true;
      }
    }
    return reachable;
  }

  private canEnter(stage: Stage, reachable: ReadonlySet<string>): boolean {
    if (stage.entry === undefined) return true;
    if (this.neverTrue(stage.entry)) return false;
    const reads = guardReads(stage.entry);
    return reads.paths.some((read) => {
      if (read.root === 'stage') return read.path[0] !== undefined && read.path[0] !== stage.id && reachable.has(read.path[0]);
      if (read.root === 'data') return this.isWritten(read.path);
      return true;
    }) || [...reads.roots].some((root) => root !== 'data' && root !== 'stage');
  }
}

/** A guard that reads nothing, evaluated: false is false forever. */
function falseByItself(source: string): boolean {
  try {
    return evaluate(untyped!, source, {}) === false;
  } catch {
    return false;
  }
}

/** A complete or raise step guarded by `when`, at the top level of a stage's steps. */
interface ConditionalExit {
  step: string;
  test: FieldTest | undefined;
}

/**
 * ends_without_outcome: the process has outcomes, no stage that can be entered surely ends the instance, and the
 * complete and raise steps of the stages are all guarded by tests of enum or boolean data fields that leave a
 * value out.
 */
class OutcomeCheck {
  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly model: ProcessModel,
    private readonly reachable: ReadonlySet<string>,
  ) {}

  run(): void {
    if (!this.model.blocks.some((block) => block.steps.some((step) => step.kind === 'complete' && isRecord(step.body)))) return;
    const live = this.model.stages.filter((stage) => this.reachable.has(stage.id));
    if (live.length === 0 || live.some((stage) => stage.steps.steps.some(endsTheFlow))) return;
    const exits: ConditionalExit[] = [];
    for (const stage of live) {
      const found = this.conditionalExits(stage);
      if (found === undefined) return;
      exits.push(...found);
    }
    const witness = this.witness(exits);
    if (witness === undefined) return;
    const last = live.at(-1)!;
    this.context.report('ends_without_outcome', { document: this.process.document, pointer: `${last.pointer}/steps`, part: 'key' }, { witness }, {
      hint: `end stage '${last.id}' with a complete step without when, or cover that case`,
    });
  }

  /** The guarded exits at the top level of a stage's steps; undefined when an exit sits deeper (undecided). */
  private conditionalExits(stage: Stage): ConditionalExit[] | undefined {
    const nested = this.model.blocks.some((block) => block.pointer.startsWith(`${stage.pointer}/steps/`) && block.steps.some(isExit));
    if (nested) return undefined;
    const data = processDataSchema(this.process);
    return stage.steps.steps.filter(isExit).map((step) => ({ step: step.id || '?', test: fieldTest(step.when, data) }));
  }

  /** Values of the tested fields that no exit accepts, as a sentence; undefined when there is none or a test is unreadable. */
  private witness(exits: readonly ConditionalExit[]): string | undefined {
    if (exits.length === 0) return 'no stage that can start has a complete step';
    if (exits.some((exit) => exit.test === undefined)) return undefined;
    const byField = new Map<string, FieldTest[]>();
    for (const exit of exits) byField.set(exit.test!.field, [...(byField.get(exit.test!.field) ?? []), exit.test!]);
    const data = processDataSchema(this.process);
    const parts: string[] = [];
    for (const [field, tests] of byField) {
      const value = domainOf(field, data)?.find((candidate) => !tests.some((test) => test.holds(candidate)));
      if (value === undefined) return undefined;
      parts.push(`${field} = ${typeof value === 'string' ? `'${value}'` : value}`);
    }
    const steps = exits.map((exit) => `'${exit.step}'`).join(', ');
    return `when ${parts.join(' and ')}, none of the guarded steps ${steps} runs`;
  }
}

function isExit(step: Step): boolean {
  return (step.kind === 'complete' || step.kind === 'raise') && isRecord(step.body);
}

/** A `when` that tests one enum or boolean data field (see `fieldTestOf`). */
function fieldTest(when: string | undefined, data: Record<string, unknown> | undefined): FieldTest | undefined {
  if (when === undefined || data === undefined) return undefined;
  const test = fieldTestOf(when);
  return test !== undefined && domainOf(test.field, data) !== undefined ? test : undefined;
}

/** The values a data field can take when they are few: its string enum, or true and false. */
function domainOf(field: string, data: Record<string, unknown> | undefined): (string | boolean)[] | undefined {
  if (data === undefined) return undefined;
  const lookup = lookupDataField(data, field.split('.').slice(1));
  if (!('schema' in lookup)) return undefined;
  const { schema } = lookup;
  if (schema.type === 'boolean') return [true, false];
  if (schema.type === 'string' && Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return schema.enum as string[];
  return undefined;
}
