/**
 * The test's stand-ins for skills, agents and memory (`mocks`): answers in call order, each optionally for one
 * `step` only and under a `when` (CEL over the call input, bound as `input` and `query`).
 */
import { isRecord } from '../json/guards.js';

export interface MockAnswer {
  step?: string;
  when?: string;
  output?: unknown;
  error?: { type: string; status?: number; detail?: string };
  timeout?: true;
  /** JSON Pointer of the answer in the test file. */
  pointer: string;
}

export type MockGroup = 'skills' | 'agents' | 'recall';

export class MockBook {
  private readonly answers = new Map<string, MockAnswer[]>();
  private readonly used = new Map<string, number>();

  constructor(
    mocks: unknown,
    private readonly matchesWhen: (source: string, input: unknown) => boolean,
  ) {
    if (!isRecord(mocks)) return;
    for (const group of ['skills', 'agents'] as const) {
      const byName = isRecord(mocks[group]) ? mocks[group] : {};
      for (const [name, list] of Object.entries(byName)) this.answers.set(`${group}:${name}`, answerList(list, `/mocks/${group}/${escape(name)}`));
    }
    this.answers.set('recall:', answerList(mocks.recall, '/mocks/recall'));
  }

  /** Whether the test mocks this skill, agent or memory at all. */
  has(group: MockGroup, name = ''): boolean {
    return (this.answers.get(`${group}:${name}`) ?? []).length > 0;
  }

  /**
   * The answer to the n-th call of a skill, an agent or memory, as the core's sandbox picks it: the candidates
   * are the answers for any step or for this one whose `when` (if any) holds on the input; the n-th call takes
   * the n-th candidate, and the last one keeps answering.
   */
  answer(group: MockGroup, name: string, step: string, input: unknown): MockAnswer | undefined {
    const key = `${group}:${group === 'recall' ? '' : name}`;
    const candidates = (this.answers.get(key) ?? []).filter((answer) => (answer.step === undefined || answer.step === step) && (answer.when === undefined || this.matchesWhen(answer.when, input)));
    const index = this.used.get(key) ?? 0;
    this.used.set(key, index + 1);
    return candidates.length === 0 ? undefined : candidates[Math.min(index, candidates.length - 1)];
  }

}

function answerList(value: unknown, pointer: string): MockAnswer[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, i) => (isRecord(item) ? [{ ...(item as Omit<MockAnswer, 'pointer'>), pointer: `${pointer}/${i}` }] : []));
}

function escape(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
