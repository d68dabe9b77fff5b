/**
 * Reachability in processes (issue 7): steps after a step that always ends the instance, stages whose entry
 * guard can never hold, milestones that are never reached, and processes with outcomes whose stages can all
 * run out of work without reaching one. The analysis only speaks when it is sure; docs/analysis.md states the
 * exact rules.
 */
import type { PackageObject } from '../../model/package.js';
import {
  atomsIn, fieldTestOf, guardOf, lookupDataField, processDataSchema, processModel,
  type Block, type FieldTest, type Guard, type ProcessModel, type Stage as ProcessStage, type Step,
} from '../../process/index.js';
import { defineRule, type RuleContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

export const processReachability = defineRule({
  id: 'process/reachability',
  description: 'Every step, stage and milestone of a process can be reached, and a process with outcomes cannot run out of work without one.',
  codes: {
    unreachable_step: {
      severity: 'error',
      summary: 'A step comes after a step of the same block that always ends the instance (complete or raise without when).',
      message: (d: { step: string; after: string; how: string; more: number }) =>
        `step '${d.step}' can never run: step '${d.after}' before it always ${d.how}${d.more > 0 ? `, and neither can the ${d.more} step${d.more > 1 ? 's' : ''} after it` : ''}`,
    },
    unreachable_stage: {
      severity: 'error',
      summary: 'The entry guard of a stage can never hold: it waits for a stage that never completes or a milestone that is never reached.',
      message: (d: { stage: string; reason: string }) => `stage '${d.stage}' can never start: ${d.reason}`,
    },
    unreachable_milestone: {
      severity: 'error',
      summary: 'The when of a milestone can never hold while its stage is open.',
      message: (d: { milestone: string; reason: string }) => `milestone '${d.milestone}' is never reached: ${d.reason}`,
    },
    dead_end: {
      severity: 'warning',
      summary: 'A process with outcomes (complete steps) can run out of work without completing.',
      message: (d: { witness: string }) => `an instance can finish all its stages without reaching a complete step: ${d.witness}`,
    },
  },
  check(context) {
    for (const process of context.objects('Process')) {
      const model = processModel(process.spec);
      reportUnreachableSteps(context, process, model.blocks);
      new StageFlow(context, process, model).run();
    }
  },
});

type Context = RuleContext<(typeof processReachability)['codes']>;

/** How a step ends the instance whatever the data: `complete` or `raise` without `when`, or a `do` that does. */
interface Ending {
  step: string;
  how: string;
}

function stepId(step: unknown): string {
  return typeof (step as { id?: unknown } | undefined)?.id === 'string' ? (step as { id: string }).id : '?';
}

function endingOf(step: Step): Ending | undefined {
  if (step.when !== undefined) return undefined;
  if (step.kind === 'complete') {
    const outcome = typeof step.body.outcome === 'string' ? ` with outcome '${step.body.outcome}'` : '';
    return { step: step.id || '?', how: `completes the instance${outcome}` };
  }
  if (step.kind === 'raise') {
    const type = typeof step.body.type === 'string' ? ` '${step.body.type}'` : '';
    return { step: step.id || '?', how: `raises the error${type}` };
  }
  const inner = step.kind === 'do' ? blockEnding(step.blocks[0]) : undefined;
  return inner === undefined ? undefined : { step: step.id || '?', how: `${inner.ending.how} through its do block (step '${inner.ending.step}')` };
}

function blockEnding(block: Block | undefined): { index: number; ending: Ending } | undefined {
  for (const step of block?.steps ?? []) {
    const ending = endingOf(step);
    if (ending !== undefined) return { index: step.index, ending };
  }
  return undefined;
}

function reportUnreachableSteps(context: Context, process: PackageObject, blocks: readonly Block[]): void {
  for (const block of blocks) {
    const end = blockEnding(block);
    if (end === undefined || end.index === block.items.length - 1) continue;
    const next = end.index + 1;
    context.report('unreachable_step', { document: process.document, pointer: `${block.pointer}/${next}/id` }, {
      step: stepId(block.items[next]), after: end.ending.step, how: end.ending.how, more: block.items.length - next - 1,
    }, { hint: `remove the steps after '${end.ending.step}', or give '${end.ending.step}' a when` });
  }
}

// ---------------------------------------------------------------- guards

/** What a guard can be: surely true, surely false, or either. */
type Truth = 'T' | 'F' | 'U';

function truthOf(guard: Guard, atom: (guard: Extract<Guard, { op: 'stage' | 'milestone' }>) => Truth): Truth {
  switch (guard.op) {
    case 'and': {
      const values = guard.items.map((item) => truthOf(item, atom));
      return values.includes('F') ? 'F' : values.every((v) => v === 'T') ? 'T' : 'U';
    }
    case 'or': {
      const values = guard.items.map((item) => truthOf(item, atom));
      return values.includes('T') ? 'T' : values.every((v) => v === 'F') ? 'F' : 'U';
    }
    case 'not': {
      const value = truthOf(guard.item, atom);
      return value === 'T' ? 'F' : value === 'F' ? 'T' : 'U';
    }
    case 'const':
      return guard.value ? 'T' : 'F';
    case 'opaque':
      return 'U';
    default:
      return atom(guard);
  }
}

// ---------------------------------------------------------------- stages

/** A stage as the analysis reads it: its guards parsed, and how its steps surely end the instance, if they do. */
interface Stage {
  id: string;
  pointer: string;
  entry?: Guard;
  exit?: Guard;
  ending?: Ending;
  steps: Block;
  milestones: { id: string; when: Guard; pointer: string }[];
}

/** A complete or raise step guarded by `when`, at the top level of a stage's steps. */
interface ConditionalExit {
  step: string;
  test: FieldTest | undefined;
}

class StageFlow {
  private readonly stages: Stage[];
  private readonly startable = new Set<string>();
  private readonly completable = new Set<string>();
  private readonly reached = new Set<string>();
  private readonly milestoneIds = new Set<string>();

  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly model: ProcessModel,
  ) {
    this.stages = model.stages.filter((stage) => typeof stage.node.id === 'string').map(stageOf);
    for (const stage of this.stages) for (const milestone of stage.milestones) this.milestoneIds.add(milestone.id);
  }

  run(): void {
    this.solve();
    for (const stage of this.stages) {
      if (!this.startable.has(stage.id)) {
        this.context.report('unreachable_stage', { document: this.process.document, pointer: `${stage.pointer}/entry` }, { stage: stage.id, reason: this.why(stage.entry!, 'its entry') }, {
          hint: 'fix the entry guard, or remove the stage',
        });
        continue;
      }
      for (const milestone of stage.milestones) {
        if (this.reached.has(milestone.id)) continue;
        this.context.report('unreachable_milestone', { document: this.process.document, pointer: `${milestone.pointer}/when` }, { milestone: milestone.id, reason: this.why(milestone.when, 'its when') }, {
          hint: 'fix the when, or remove the milestone',
        });
      }
    }
    this.deadEnd();
  }

  /** The least fixed point: what can start, complete or be reached, growing from nothing. */
  private solve(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const stage of this.stages) {
        if (!this.startable.has(stage.id) && (stage.entry === undefined || this.truth(stage.entry) !== 'F')) {
          this.startable.add(stage.id);
          changed = true;
        }
        if (!this.startable.has(stage.id)) continue;
        if (!this.completable.has(stage.id) && (stage.ending === undefined || (stage.exit !== undefined && this.truth(stage.exit) !== 'F'))) {
          this.completable.add(stage.id);
          changed = true;
        }
        for (const milestone of stage.milestones) {
          if (!this.reached.has(milestone.id) && this.truth(milestone.when) !== 'F') {
            this.reached.add(milestone.id);
            changed = true;
          }
        }
      }
    }
  }

  private truth(guard: Guard): Truth {
    return truthOf(guard, (atom) => this.atomTruth(atom));
  }

  /** An atom about a stage or milestone the process does not have is the CEL check's finding: unknown here. */
  private atomTruth(atom: Extract<Guard, { op: 'stage' | 'milestone' }>): Truth {
    if (atom.op === 'milestone') return !this.milestoneIds.has(atom.id) || this.reached.has(atom.id) ? 'U' : 'F';
    if (!this.stages.some((stage) => stage.id === atom.id)) return 'U';
    const possible = atom.state === 'completed' ? this.completable : this.startable;
    return possible.has(atom.id) ? 'U' : 'F';
  }

  /** Why a guard can never hold: the first atom of it that cannot, explained. */
  private why(guard: Guard, what: string): string {
    for (const atom of atomsIn(guard)) {
      if (atom.op === 'const') {
        if (!atom.value) return `${what} is false`;
        continue;
      }
      if (this.atomTruth(atom) !== 'F') continue;
      if (atom.op === 'milestone') return `${what} waits for ${atom.text}, and milestone '${atom.id}' is never reached`;
      const stage = this.stages.find((s) => s.id === atom.id)!;
      if (!this.startable.has(stage.id)) return `${what} waits for ${atom.text}, and stage '${stage.id}' can never start`;
      return `${what} waits for ${atom.text}, and stage '${stage.id}' never completes: step '${stage.ending!.step}' always ${stage.ending!.how} first`;
    }
    return `${what} can never hold`;
  }

  /**
   * dead_end: the process has outcomes, no stage that can start surely ends the instance, and the complete and
   * raise steps of the stages are all guarded by tests of enum or boolean data fields that leave a value out.
   */
  private deadEnd(): void {
    if (!this.model.blocks.some((block) => block.steps.some((step) => step.kind === 'complete' && isRecord(step.body)))) return;
    const live = this.stages.filter((stage) => this.startable.has(stage.id));
    if (live.length === 0 || live.some((stage) => stage.ending !== undefined)) return;
    const exits: ConditionalExit[] = [];
    for (const stage of live) {
      const found = this.conditionalExits(stage);
      if (found === undefined) return;
      exits.push(...found);
    }
    const witness = this.witness(exits);
    if (witness === undefined) return;
    const last = live.at(-1)!;
    this.context.report('dead_end', { document: this.process.document, pointer: `${last.pointer}/steps`, part: 'key' }, { witness }, {
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

function stageOf(stage: ProcessStage): Stage {
  const result: Stage = {
    id: stage.id,
    pointer: stage.pointer,
    steps: stage.steps,
    milestones: stage.milestones.flatMap((milestone) => (milestone.when === undefined ? [] : [{ id: milestone.id, when: guardOf(milestone.when), pointer: milestone.pointer }])),
  };
  if (stage.entry !== undefined) result.entry = guardOf(stage.entry);
  if (stage.exit !== undefined) result.exit = guardOf(stage.exit);
  const ending = blockEnding(stage.steps)?.ending;
  if (ending !== undefined) result.ending = ending;
  return result;
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
