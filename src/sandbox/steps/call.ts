/**
 * `call`: a skill, an agent or another process, answered by the test's mocks. The input is checked against the
 * skill's contract, the mocked output too; a mocked timeout waits out the step's `timeout` and raises `timeout`.
 */
import { ProcessError } from '../instance.js';
import { ScenarioFailure } from '../result.js';
import { copy } from '../values.js';
import type { Handler } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const call: Handler<'call'> = async (step, { instance, scope, ctx }) => {
  const body = step.body;
  const { catalog, mocks, schemas } = instance.options;
  const input = body.input === undefined ? {} : instance.evaluateMap(body.input, ctx);
  const [group, name] = callee(body);
  const skill = group === 'skills' ? catalog.spec('Skill', name) : undefined;
  const contract = isRecord(skill?.contract) ? skill.contract : {};
  if (contract.inputs !== undefined) {
    const problem = schemas.problem(contract.inputs, input);
    if (problem !== undefined) throw new ScenarioFailure('skill_input_invalid', `step '${step.id}' calls ${name} with input that breaks its contract: ${problem}`, { actual: input });
  }
  if (skill !== undefined && skill.sideEffects !== undefined && skill.sideEffects !== 'none') instance.sideEffects.push(name);
  const answer = mocks.answer(group, name, step.id, input);
  if (answer === undefined) throw new ScenarioFailure('mock_missing', `step '${step.id}' calls ${group === 'skills' ? 'skill' : 'agent'} ${name}, and the test has no answer for it`);
  instance.record('process.call', step.id, { [group === 'skills' ? 'skill' : 'agent']: name, input });
  if (answer.timeout === true) {
    if (body.timeout !== undefined) await instance.sleep(instance.point(body.timeout, ctx), scope, step.id);
    throw new ProcessError({ type: 'timeout', detail: `${name} did not answer in time` });
  }
  if (answer.error !== undefined) throw new ProcessError({ ...answer.error });
  if (contract.outputs !== undefined) {
    const problem = schemas.problem(contract.outputs, answer.output);
    if (problem !== undefined) throw new ScenarioFailure('mock_output_invalid', `the mocked output of ${name} breaks the skill's output schema: ${problem}`, { path: answer.pointer, actual: answer.output });
  }
  return { result: copy(answer.output) };
};

/** The mocks a call is answered from: a skill by its id, an agent by its key, a process as agent `process:<key>`. */
function callee(body: { skill?: string; agent?: string; process?: string }): ['skills' | 'agents', string] {
  if (typeof body.skill === 'string') return ['skills', body.skill];
  if (typeof body.agent === 'string') return ['agents', body.agent];
  return ['agents', `process:${String(body.process)}`];
}
