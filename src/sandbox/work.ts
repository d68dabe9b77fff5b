/**
 * The work a rule or a task type's outcomes ask the core for — tasks to ensure, skills to invoke, comments —
 * recorded instead of done, and the expectations scenarios state about it (`ensureWork`, `invokeSkill`,
 * `noSideEffects`).
 */
import type { Catalog } from './catalog.js';
import type { MockBook } from './mocks.js';
import { ScenarioFailure } from './result.js';
import type { SchemaChecker } from './schemas.js';
import { containsValue, copy, show } from './values.js';
import { isRecord } from '../json/guards.js';

export interface WorkLog {
  ensureWork: Record<string, unknown>[];
  invokeSkill: { skill: string; inputs: Record<string, unknown> }[];
  comments: string[];
  /** Skills with side effects that were invoked. */
  sideEffects: string[];
}

export function emptyLog(): WorkLog {
  return { ensureWork: [], invokeSkill: [], comments: [], sideEffects: [] };
}

export type SkillAnswer = { output: unknown } | { error: { type: string; status?: number; detail?: string } };

/** Invokes a skill through the test's mocks: records the call, checks the answer against the skill's contract. */
export function invokeSkill(
  log: WorkLog,
  tools: { catalog: Catalog; mocks: MockBook; schemas: SchemaChecker },
  skill: string,
  inputs: Record<string, unknown>,
  step: string,
): SkillAnswer {
  log.invokeSkill.push({ skill, inputs: copy(inputs) });
  const spec = tools.catalog.spec('Skill', skill);
  if (spec !== undefined && spec.sideEffects !== undefined && spec.sideEffects !== 'none') log.sideEffects.push(skill);
  const answer = tools.mocks.answer('skills', skill, step, inputs);
  if (answer === undefined) throw new ScenarioFailure('mock_missing', `skill ${skill} is invoked, and the test has no answer for it (mocks.skills)`);
  if (answer.error !== undefined) return { error: answer.error };
  if (answer.timeout === true) return { error: { type: 'timeout', detail: `${skill} did not answer in time` } };
  const contract = isRecord(spec?.contract) ? spec.contract : {};
  const problem = contract.outputs === undefined ? undefined : tools.schemas.problem(contract.outputs, answer.output);
  if (problem !== undefined) throw new ScenarioFailure('mock_output_invalid', `the mocked output of ${skill} breaks the skill's output schema: ${problem}`, { path: answer.pointer, actual: answer.output });
  return { output: copy(answer.output) };
}

/** `ensureWork` / `invokeSkill` of an expect: the same number of items, each holding what the expected one gives. */
export function checkWorkList(field: 'ensureWork' | 'invokeSkill', expected: unknown, actual: readonly unknown[]): void {
  if (!Array.isArray(expected)) return;
  const fits = expected.length === actual.length && expected.every((item, i) => containsValue(item, actual[i]));
  if (!fits) {
    const noun = field === 'ensureWork' ? 'work ensured' : 'skills invoked';
    throw new ScenarioFailure('expectation_failed', `${field}: expected ${expected.length === 0 ? `no ${noun}` : show(expected)}, got ${actual.length === 0 ? `no ${noun}` : show(actual)}`, {
      expected, actual, path: field,
    });
  }
}

/** `noSideEffects: true`: nothing with an effect outside the sandbox happened. */
export function checkNoSideEffects(sideEffects: readonly string[], extra: readonly unknown[] = []): void {
  if (sideEffects.length === 0 && extra.length === 0) return;
  const what = [...sideEffects.map((skill) => `skill ${skill} (it declares side effects)`), ...extra.map((item) => `work ${show(item)}`)];
  throw new ScenarioFailure('expectation_failed', `noSideEffects: expected none, got ${what.join(', ')}`, { path: 'noSideEffects', actual: what });
}

