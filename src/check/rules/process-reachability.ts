/**
 * Reachability in processes (issue 7): steps after a step that always ends the instance, stages whose entry
 * guard can never hold, milestones that are never reached, and processes with outcomes whose stages can all
 * run out of work without reaching one. The analysis only speaks when it is sure; docs/analysis.md states the
 * exact rules.
 */
import { isMapping } from '../../load/package.js';
import { childPointer } from '../../load/pointer.js';
import type { PackageObject } from '../../model/package.js';
import { lookupDataField, processBlocks, processDataSchema, type ProcessBlock } from '../../model/process.js';
import { defineRule, type RuleContext } from '../rule.js';
import { blankStrings } from './screens.js';

export const processReachability = defineRule({
  id: 'process/reachability',
  description: 'Every step, stage and milestone of a process can be reached, and a process with outcomes cannot run out of work without one.',
  reads: ['Process'],
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
      const blocks = processBlocks(process.spec);
      reportUnreachableSteps(context, process, blocks);
      new StageFlow(context, process, blocks).run();
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
  return isMapping(step) && typeof step.id === 'string' ? step.id : '?';
}

function endingOf(step: unknown): Ending | undefined {
  if (!isMapping(step) || step.when !== undefined) return undefined;
  if (isMapping(step.complete)) {
    const outcome = typeof step.complete.outcome === 'string' ? ` with outcome '${step.complete.outcome}'` : '';
    return { step: stepId(step), how: `completes the instance${outcome}` };
  }
  if (isMapping(step.raise)) {
    const type = typeof step.raise.type === 'string' ? ` '${step.raise.type}'` : '';
    return { step: stepId(step), how: `raises the error${type}` };
  }
  const inner = Array.isArray(step.do) ? blockEnding(step.do) : undefined;
  return inner === undefined ? undefined : { step: stepId(step), how: `${inner.ending.how} through its do block (step '${inner.ending.step}')` };
}

function blockEnding(steps: readonly unknown[]): { index: number; ending: Ending } | undefined {
  for (let index = 0; index < steps.length; index++) {
    const ending = endingOf(steps[index]);
    if (ending !== undefined) return { index, ending };
  }
  return undefined;
}

function reportUnreachableSteps(context: Context, process: PackageObject, blocks: readonly ProcessBlock[]): void {
  for (const block of blocks) {
    const end = blockEnding(block.steps);
    if (end === undefined || end.index === block.steps.length - 1) continue;
    const next = end.index + 1;
    context.report('unreachable_step', { document: process.document, pointer: `${childPointer(block.pointer, next)}/id` }, {
      step: stepId(block.steps[next]), after: end.ending.step, how: end.ending.how, more: block.steps.length - next - 1,
    }, { hint: `remove the steps after '${end.ending.step}', or give '${end.ending.step}' a when` });
  }
}

// ---------------------------------------------------------------- guards

/** An entry, exit or milestone guard as far as the analysis reads it; anything else is `opaque`. */
type Guard =
  | { op: 'and' | 'or'; items: Guard[] }
  | { op: 'not'; item: Guard }
  | { op: 'const'; value: boolean }
  | { op: 'stage'; id: string; state: 'completed' | 'active'; text: string }
  | { op: 'milestone'; id: string; text: string }
  | { op: 'opaque' };

/** What a guard can be: surely true, surely false, or either. */
type Truth = 'T' | 'F' | 'U';

const OPAQUE: Guard = { op: 'opaque' };
const NAME = String.raw`(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\])`;
const STAGE_ATOM = new RegExp(String.raw`^stage${NAME}\.(completed|active)$`);
const MILESTONE_ATOM = new RegExp(String.raw`^milestone${NAME}$`);

/** Reads `&&`, `||`, `!`, parentheses, true/false and `stage.<id>.completed|active` / `milestone.<id>`. */
function parseGuard(source: string): Guard {
  return parseRange(source, blankStrings(source), 0, source.length);
}

function parseRange(source: string, blank: string, from: number, to: number): Guard {
  while (from < to && /\s/.test(blank[from]!)) from++;
  while (to > from && /\s/.test(blank[to - 1]!)) to--;
  if (from >= to) return OPAQUE;
  if (blank[from] === '(' && closingParen(blank, from) === to - 1) return parseRange(source, blank, from + 1, to - 1);
  if (hasTopLevel(blank, from, to, (i) => blank[i] === '?' && blank[i - 1] !== '.' && blank[i - 1] !== '[')) return OPAQUE; // a ternary
  for (const [operator, op] of [['||', 'or'], ['&&', 'and']] as const) {
    const cuts = topLevelCuts(blank, from, to, operator);
    if (cuts.length > 0) {
      const bounds = [from, ...cuts.flatMap((cut) => [cut, cut + 2]), to];
      const items: Guard[] = [];
      for (let i = 0; i < bounds.length; i += 2) items.push(parseRange(source, blank, bounds[i]!, bounds[i + 1]!));
      return { op, items };
    }
  }
  if (blank[from] === '!' && blank[from + 1] !== '=') return { op: 'not', item: parseRange(source, blank, from + 1, to) };
  const text = source.slice(from, to).replace(/\s+/g, '');
  if (text === 'true' || text === 'false') return { op: 'const', value: text === 'true' };
  const stage = STAGE_ATOM.exec(text);
  if (stage !== null) return { op: 'stage', id: (stage[1] ?? stage[2] ?? stage[3])!, state: stage[4] as 'completed' | 'active', text };
  const milestone = MILESTONE_ATOM.exec(text);
  if (milestone !== null) return { op: 'milestone', id: (milestone[1] ?? milestone[2] ?? milestone[3])!, text };
  return OPAQUE;
}

function closingParen(blank: string, open: number): number {
  let depth = 0;
  for (let i = open; i < blank.length; i++) {
    if ('([{'.includes(blank[i]!)) depth++;
    else if (')]}'.includes(blank[i]!) && --depth === 0) return i;
  }
  return -1;
}

function hasTopLevel(blank: string, from: number, to: number, test: (i: number) => boolean): boolean {
  let depth = 0;
  for (let i = from; i < to; i++) {
    if ('([{'.includes(blank[i]!)) depth++;
    else if (')]}'.includes(blank[i]!)) depth--;
    else if (depth === 0 && test(i)) return true;
  }
  return false;
}

function topLevelCuts(blank: string, from: number, to: number, operator: string): number[] {
  const cuts: number[] = [];
  let depth = 0;
  for (let i = from; i < to; i++) {
    if ('([{'.includes(blank[i]!)) depth++;
    else if (')]}'.includes(blank[i]!)) depth--;
    else if (depth === 0 && blank.startsWith(operator, i)) {
      cuts.push(i);
      i++;
    }
  }
  return cuts;
}

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

/** The atoms of a guard, in the order written. */
function atomsIn(guard: Guard): Extract<Guard, { op: 'stage' | 'milestone' | 'const' }>[] {
  switch (guard.op) {
    case 'and':
    case 'or':
      return guard.items.flatMap(atomsIn);
    case 'not':
      return atomsIn(guard.item);
    case 'opaque':
      return [];
    default:
      return [guard];
  }
}

// ---------------------------------------------------------------- stages

interface Stage {
  id: string;
  pointer: string;
  entry?: Guard;
  exit?: Guard;
  ending?: Ending;
  steps: readonly unknown[];
  milestones: { id: string; when: Guard; pointer: string }[];
}

/** A complete or raise step guarded by `when`, at the top level of a stage's steps. */
interface ConditionalExit {
  step: string;
  test: FieldTest | undefined;
}

/** A guard that tests one data field against values: which values of the field make it hold. */
interface FieldTest {
  field: string;
  holds(value: string | boolean): boolean;
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
    private readonly blocks: readonly ProcessBlock[],
  ) {
    const stages = Array.isArray(process.spec.stages) ? process.spec.stages : [];
    this.stages = stages.flatMap((stage, index) => (isMapping(stage) && typeof stage.id === 'string' ? [stageOf(stage, childPointer('/spec/stages', index))] : []));
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
    if (!this.blocks.some((block) => block.steps.some((step) => isMapping(step) && isMapping(step.complete)))) return;
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
    const nested = this.blocks.some((block) => block.pointer.startsWith(`${stage.pointer}/steps/`) && block.steps.some(isExit));
    if (nested) return undefined;
    const data = processDataSchema(this.process);
    return stage.steps.filter(isExit).map((step) => ({ step: stepId(step), test: fieldTest((step as { when?: unknown }).when, data) }));
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

function stageOf(stage: Record<string, unknown>, pointer: string): Stage {
  const steps = Array.isArray(stage.steps) ? stage.steps : [];
  const milestones = (Array.isArray(stage.milestones) ? stage.milestones : []).flatMap((milestone, index) =>
    isMapping(milestone) && typeof milestone.id === 'string' && typeof milestone.when === 'string'
      ? [{ id: milestone.id, when: parseGuard(milestone.when), pointer: childPointer(`${pointer}/milestones`, index) }]
      : []);
  const result: Stage = { id: stage.id as string, pointer, steps, milestones };
  if (typeof stage.entry === 'string') result.entry = parseGuard(stage.entry);
  if (typeof stage.exit === 'string') result.exit = parseGuard(stage.exit);
  const ending = blockEnding(steps)?.ending;
  if (ending !== undefined) result.ending = ending;
  return result;
}

function isExit(step: unknown): boolean {
  return isMapping(step) && (isMapping(step.complete) || isMapping(step.raise));
}

const FIELD = String.raw`data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`;
const LITERAL = String.raw`'[^']*'|"[^"]*"|true|false`;
const EQUALS = new RegExp(String.raw`^${FIELD}\s*(==|!=)\s*(${LITERAL})$`);
const EQUALS_REVERSED = new RegExp(String.raw`^(${LITERAL})\s*(==|!=)\s*${FIELD}$`);
const MEMBER = new RegExp(String.raw`^${FIELD}\s+in\s+\[([^\]]*)\]$`);
const FLAG = new RegExp(String.raw`^(!?)\s*${FIELD}$`);

/**
 * A `when` that tests one field: `data.f == 'v'`, `'v' == data.f`, `!=`, `data.f in ['a', 'b']`, `data.f`,
 * `!data.f`, or an `||` of such tests of the same field.
 */
function fieldTest(when: unknown, data: Record<string, unknown> | undefined): FieldTest | undefined {
  if (typeof when !== 'string' || data === undefined) return undefined;
  const alternatives = topLevelCuts(blankStrings(when), 0, when.length, '||');
  if (alternatives.length > 0) {
    const bounds = [0, ...alternatives.flatMap((cut) => [cut, cut + 2]), when.length];
    const tests: FieldTest[] = [];
    for (let i = 0; i < bounds.length; i += 2) {
      const test = fieldTest(when.slice(bounds[i], bounds[i + 1]), data);
      if (test === undefined || (tests.length > 0 && test.field !== tests[0]!.field)) return undefined;
      tests.push(test);
    }
    return { field: tests[0]!.field, holds: (value) => tests.some((test) => test.holds(value)) };
  }
  const text = when.trim();
  const literal = (token: string) => (token === 'true' ? true : token === 'false' ? false : token.slice(1, -1));
  const equals = EQUALS.exec(text);
  const reversed = EQUALS_REVERSED.exec(text);
  const member = MEMBER.exec(text);
  const flag = FLAG.exec(text);
  let test: FieldTest | undefined;
  if (equals !== null || reversed !== null) {
    const [path, op, token] = equals !== null ? [equals[1]!, equals[2]!, equals[3]!] : [reversed![3]!, reversed![2]!, reversed![1]!];
    const expected = literal(token);
    test = { field: `data${path}`, holds: (value) => (value === expected) === (op === '==') };
  } else if (member !== null) {
    const items = member[2]!.split(',').map((item) => item.trim()).filter((item) => item !== '');
    if (!items.every((item) => new RegExp(`^(?:${LITERAL})$`).test(item))) return undefined;
    const values = items.map(literal);
    test = { field: `data${member[1]}`, holds: (value) => values.includes(value) };
  } else if (flag !== null) {
    test = { field: `data${flag[2]}`, holds: (value) => value === (flag[1] === '') };
  }
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
