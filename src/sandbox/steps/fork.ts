/**
 * `fork`: runs its branches side by side, each in a scope of its own — until all are done, or (`compete`)
 * until the first is, when the others are cancelled. A branch counts as covered when it finishes.
 */
import type { StepOf } from '../../process/index.js';
import type { Scope } from '../clock.js';
import type { StepContext } from '../instance.js';
import type { Handler, StepRun } from './handler.js';

export const fork: Handler<'fork'> = async (step, run) => {
  await runBranches(step, run, run.scope, run.ctx);
  return {};
};

async function runBranches(step: StepOf<'fork'>, { instance, flow }: StepRun, scope: Scope, ctx: StepContext): Promise<void> {
  const branches = step.body.branches ?? [];
  const scopes = branches.map(() => scope.child());
  const runs = branches.map((branch, i) => flow.runHeld(step, 'branch', scopes[i]!, ctx, branch).then(() => {
    instance.covered.add(String(branch.id));
    return i;
  }));
  try {
    if (step.body.mode === 'compete') {
      const winner = await Promise.race(runs);
      instance.record('process.fork_won', String(branches[winner]!.id));
    } else {
      await Promise.all(runs);
    }
  } finally {
    for (const branch of scopes) branch.cancel();
    for (const run of runs) run.catch(() => undefined); // the losers unwind with Cancelled
  }
}
