/**
 * Coverage of a process, as the core's sandbox computes it from what the instance did:
 *
 * * elements — stages entered, steps executed (a `do`/`try` when a step inside ran), milestones reached,
 *   timers fired;
 * * transitions — `<stage>:entry|exit` (guards that held), `<step>:when|skip`, a listen's `<step>:any/<i>` and
 *   `<step>:timeout`, a recall's `<step>:answered|timeout`, an approval's `<step>:approved|rejected`, a fork's
 *   `<fork>:<branch>`, `correlate/<i>`, `onEvent/<i>`;
 * * decision rows — `<table>/<row>` (rows from 0);
 * * handlers — `<step>:catch/<i>`, `<step>:retry`, `<step>:onTimeout`, `<step>:onCompensate`,
 *   `<step>:escalations/<i>`, `<step>:onDue`.
 *
 * `coverage.minimum` of a test compares the elements' percentage only.
 */
import type { Block, ProcessModel, Step } from '../process/index.js';
import { isRecord } from '../json/guards.js';
import { records } from './values.js';

/** What one instance covered. */
export class Coverage {
  readonly elements = new Set<string>();
  readonly transitions = new Set<string>();
  readonly decisionRows = new Set<string>();
  readonly handlers = new Set<string>();

  element(id: string): void {
    this.elements.add(id);
  }

  transition(id: string): void {
    this.transitions.add(id);
  }

  row(id: string): void {
    this.decisionRows.add(id);
  }

  handler(id: string): void {
    this.handlers.add(id);
  }
}

export const COVERAGE_KINDS = ['elements', 'transitions', 'decisionRows', 'handlers'] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];

/** Covered against total of one kind. */
export interface CoverageCount {
  covered: number;
  total: number;
  /** Covered share, 0–100, one decimal. */
  percent: number;
  /** What was never reached. */
  missed: string[];
}

/** The coverage of a process by a test (or by all its tests): the elements, and the other kinds beside them. */
export interface ElementCoverage extends CoverageCount {
  transitions: CoverageCount;
  decisionRows: CoverageCount;
  handlers: CoverageCount;
}

/** The coverage of a work rule by a test: its outcomes (`matched`, `not_matched`, `failed` with an interpretation) and its condition's two branches. */
export interface RuleCoverage {
  outcomes: CoverageCount;
  branches: CoverageCount;
}

/** The coverage of a task type by a test: gate outcomes (`<gate>/<decision>`), preconditions, completion actions (`onComplete/<i>`), acceptance criteria (by key). */
export interface TaskTypeCoverage {
  outcomes: CoverageCount;
  preconditions: CoverageCount;
  completion: CoverageCount;
  acceptance: CoverageCount;
}

export type SubjectCoverage = ElementCoverage | RuleCoverage | TaskTypeCoverage;

/** What a work rule's tests can cover. */
export function ruleCoverageItems(spec: Readonly<Record<string, unknown>>): { outcomes: string[]; branches: string[] } {
  return {
    outcomes: ['matched', 'not_matched', ...(spec.interpretation !== undefined ? ['failed'] : [])],
    branches: spec.condition === undefined ? [] : ['condition:true', 'condition:false'],
  };
}

/** What a task type's tests can cover. The sandbox models no preconditions of a task type: none are counted. */
export function taskTypeCoverageItems(spec: Readonly<Record<string, unknown>>): { outcomes: string[]; preconditions: string[]; completion: string[]; acceptance: string[] } {
  const gates = isRecord(spec.approvalSchema) && isRecord(spec.approvalSchema.gates) ? spec.approvalSchema.gates : {};
  const onComplete = isRecord(spec.completionSchema) && isRecord(spec.completionSchema.onComplete) ? spec.completionSchema.onComplete : {};
  return {
    outcomes: Object.entries(gates).flatMap(([gate, body]) => Object.keys(isRecord(body) && isRecord(body.outcomes) ? body.outcomes : {}).map((decision) => `${gate}/${decision}`)),
    preconditions: [],
    completion: records(onComplete.actions).map((_, i) => `onComplete/${i}`),
    acceptance: records(spec.acceptance).map((criterion) => String(criterion.key)),
  };
}

/** Counts, kind by kind, of what a test reached of the items. */
export function countsOf<K extends string>(items: Record<K, string[]>, reached: Partial<Record<K, ReadonlySet<string>>>): Record<K, CoverageCount> {
  return Object.fromEntries(Object.entries(items).map(([kind, list]) => [kind, countOf(list as string[], reached[kind as K] ?? new Set())])) as Record<K, CoverageCount>;
}

/** Everything of a process that coverage counts, by kind, in the order the process reads. */
export function coverageItems(model: ProcessModel): Record<CoverageKind, string[]> {
  const steps = topLevelBlocks(model).flatMap(stepsIn);
  return {
    elements: unique([
      ...model.stages.flatMap((stage) => [stage.id, ...stage.milestones.map((m) => m.id), ...stage.timers.map((t) => t.id)]),
      ...model.timers.map((timer) => timer.id),
      ...steps.map((step) => step.id),
    ]),
    transitions: unique([
      ...model.stages.flatMap((stage) => [...(stage.entry !== undefined ? [`${stage.id}:entry`] : []), ...(stage.exit !== undefined ? [`${stage.id}:exit`] : [])]),
      ...steps.flatMap(stepTransitions),
      ...model.correlate.map((_, i) => `correlate/${i}`),
      ...model.onEvent.map((_, i) => `onEvent/${i}`),
    ]),
    decisionRows: model.decisions.flatMap((table) => records(table.node.rules).map((_, row) => `${String(table.id)}/${row}`)),
    handlers: unique(steps.flatMap(stepHandlers)),
  };
}

/** Counts of what a set of covered ids reached of the items. */
export function countOf(items: readonly string[], covered: ReadonlySet<string>): CoverageCount {
  const missed = items.filter((id) => !covered.has(id));
  const reached = items.length - missed.length;
  return { covered: reached, total: items.length, percent: items.length === 0 ? 100 : Math.round((reached / items.length) * 1000) / 10, missed };
}

export function coverageOf(model: ProcessModel, coverage: Coverage): ElementCoverage {
  const items = coverageItems(model);
  return {
    ...countOf(items.elements, coverage.elements),
    transitions: countOf(items.transitions, coverage.transitions),
    decisionRows: countOf(items.decisionRows, coverage.decisionRows),
    handlers: countOf(items.handlers, coverage.handlers),
  };
}

function stepTransitions(step: Step): string[] {
  const out = step.when !== undefined ? [`${step.id}:when`, `${step.id}:skip`] : [];
  if (step.kind === 'listen') {
    out.push(...(step.body.any ?? []).map((_, i) => `${step.id}:any/${i}`));
    if (step.body.timeout !== undefined) out.push(`${step.id}:timeout`);
  }
  if (step.kind === 'recall') out.push(`${step.id}:answered`, `${step.id}:timeout`);
  if (step.kind === 'approve') out.push(`${step.id}:approved`, `${step.id}:rejected`);
  if (step.kind === 'fork') out.push(...(step.body.branches ?? []).map((branch) => `${step.id}:${String(branch.id)}`));
  return out;
}

function stepHandlers(step: Step): string[] {
  const out: string[] = [];
  if (step.kind === 'try') {
    out.push(...(step.body.catch ?? []).map((_, i) => `${step.id}:catch/${i}`));
    if (isRecord(step.body.retry)) out.push(`${step.id}:retry`);
  }
  if ((step.kind === 'listen' || step.kind === 'recall') && step.blocks.some((block) => block.role === 'onTimeout')) out.push(`${step.id}:onTimeout`);
  if (step.blocks.some((block) => block.role === 'onCompensate')) out.push(`${step.id}:onCompensate`);
  if (step.kind === 'human' || step.kind === 'approve') out.push(...(step.body.escalations ?? []).map((_, i) => `${step.id}:escalations/${i}`));
  if (step.kind === 'approve' && (step.body.onDue === 'approve' || step.body.onDue === 'reject')) out.push(`${step.id}:onDue`);
  return out;
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** The blocks no step holds: each stage's steps, discretionary work and timers; process timers; handlers; correlations. */
function topLevelBlocks(model: ProcessModel): Block[] {
  return [
    ...model.stages.flatMap((stage) => [stage.steps, ...(stage.discretionary ? [stage.discretionary] : []), ...stage.timers.map((timer) => timer.do)]),
    ...model.timers.map((timer) => timer.do),
    ...[...model.onEvent, ...model.correlate].flatMap((handler) => (handler.do ? [handler.do] : [])),
  ];
}

/** A block's steps depth first, each before the steps it holds. */
function stepsIn(block: Block): Step[] {
  return block.steps.flatMap((step) => [step, ...heldInCoverageOrder(step).flatMap(stepsIn)]);
}

/** The blocks a step holds, a listen's `onTimeout` before its options, as coverage reports list them. */
function heldInCoverageOrder(step: Step): Block[] {
  return [...step.blocks].sort((a, b) => Number(a.role === 'listen') - Number(b.role === 'listen'));
}
