/**
 * The elements a process test covers, as its coverage counts and lists them: each stage with its milestones
 * and timers, the process timers, then every step — a fork with its branches — in the order the process reads.
 */
import type { Block, ProcessModel, Step } from '../process/index.js';

export function coverageElements(model: ProcessModel): string[] {
  const ids: string[] = [];
  for (const stage of model.stages) ids.push(stage.id, ...stage.milestones.map((m) => m.id), ...stage.timers.map((t) => t.id));
  ids.push(...model.timers.map((timer) => timer.id));
  for (const step of topLevelBlocks(model).flatMap(stepsIn)) {
    ids.push(step.id);
    if (step.kind === 'fork') ids.push(...(step.body.branches ?? []).map((branch) => String(branch.id)));
  }
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
