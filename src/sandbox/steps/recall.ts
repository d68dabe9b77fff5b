/**
 * `recall`: a memory query, answered by the test's `mocks.recall`. A mocked timeout waits out the step's
 * `timeout` and runs `onTimeout` instead of giving a result.
 */
import { milliseconds } from '../due.js';
import { ProcessError } from '../instance.js';
import { ScenarioFailure } from '../result.js';
import { copy } from '../values.js';
import type { Handler } from './handler.js';

export const recall: Handler<'recall'> = async (step, { instance, flow, scope, ctx }) => {
  const body = step.body;
  const query = { step: step.id, query: typeof body.query === 'string' ? instance.evaluateOrNull(body.query, ctx) : null, kinds: body.kinds ?? [] };
  const answer = instance.options.mocks.answer('recall', '', step.id, query);
  if (answer === undefined) throw new ScenarioFailure('mock_missing', `step '${step.id}' recalls memory, and the test has no recall answer for it (mocks.recall)`);
  instance.recalled.push(step.id);
  if (answer.timeout === true) {
    if (typeof body.timeout === 'string') await instance.sleep(instance.clock.now + milliseconds(body.timeout), scope, step.id);
    await flow.runHeld(step, 'onTimeout', scope, ctx);
    return { skipOutput: true };
  }
  if (answer.error !== undefined) throw new ProcessError({ ...answer.error });
  return { result: copy(answer.output) };
};
