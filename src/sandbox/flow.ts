/**
 * Runs blocks of steps in order: a step waits while the instance is suspended, is skipped when its `when` is
 * false, does what its kind does (steps/), writes its output, becomes compensable, and the instance re-reads its
 * guards after it.
 */
import type { BlockRole, Step, StepKind, StepOf } from '../process/index.js';
import { Cancelled, type Scope } from './clock.js';
import type { ProcessInstance, StepContext } from './instance.js';
import type { BlockRunner, StepDone, StepRun } from './steps/handler.js';
import { HANDLERS } from './steps/index.js';
import { isRecord } from '../json/guards.js';

export class Flow implements BlockRunner {
  constructor(
    private readonly instance: ProcessInstance,
    /** What follows every step that completes: the instance re-reads its guards. */
    private readonly afterStep: () => void,
  ) {}

  async run(steps: readonly Step[], scope: Scope, ctx: StepContext): Promise<void> {
    for (const step of steps) await this.step(step, scope, ctx);
  }

  /** Runs the block of `role` a step holds — for a catch clause, a fork branch or a listen option, the one `holder` holds. */
  runHeld(step: Step, role: BlockRole, scope: Scope, ctx: StepContext, holder?: object): Promise<void> {
    return this.run(heldSteps(step, role, holder), scope, ctx);
  }

  private async step(step: Step, scope: Scope, ctx: StepContext): Promise<void> {
    const instance = this.instance;
    if (scope.cancelled) throw new Cancelled();
    if (step.kind !== 'resume') await instance.whileSuspended(scope);
    if (step.when !== undefined && instance.evaluate(step.when, ctx) !== true) {
      instance.record('process.step_skipped', step.id);
      return;
    }
    instance.covered.add(step.id);
    const done = await perform(step, { instance, flow: this, scope, ctx });
    const output = outputOf(step);
    if (done.skipOutput !== true && output !== undefined) {
      instance.assign(output, { ...ctx, ...(done.task ? { task: done.task } : {}) }, step.id, done.result);
    }
    if (step.blocks.some((block) => block.role === 'onCompensate')) instance.compensable.push({ step, ctx });
    instance.record('process.step_completed', step.id);
    this.afterStep();
  }
}

function perform<K extends StepKind>(step: StepOf<K>, run: StepRun): StepDone | Promise<StepDone> {
  return HANDLERS[step.kind](step, run);
}

/** `output.as`: where the step's result goes in the data. */
function outputOf(step: Step): Readonly<Record<string, unknown>> | undefined {
  const output = step.node.output;
  return isRecord(output) && isRecord(output.as) ? output.as : undefined;
}

function heldSteps(step: Step, role: BlockRole, holder?: object): readonly Step[] {
  return step.blocks.find((block) => block.role === role && (holder === undefined || block.holder === holder))?.steps ?? [];
}
