import { isRecord } from '../json/guards.js';
/**
 * The test's stand-ins for skills, agents and memory (`mocks`): answers in call order, or chosen by `when` (CEL
 * over the call input, bound as `input` and `query`), optionally for one `step` only. Answers without `when` are
 * used in order; once all are used the last one keeps answering.
 */

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

  answer(group: MockGroup, name: string, step: string, input: unknown): MockAnswer | undefined {
    const key = `${group}:${group === 'recall' ? '' : name}`;
    const candidates = (this.answers.get(key) ?? []).filter((answer) => answer.step === undefined || answer.step === step);
    const chosen = candidates.find((answer) => answer.when !== undefined && this.matchesWhen(answer.when, input));
    if (chosen !== undefined) return chosen;
    const ordered = candidates.filter((answer) => answer.when === undefined);
    if (ordered.length === 0) return undefined;
    const usedKey = key;
    const index = this.used.get(usedKey) ?? 0;
    this.used.set(usedKey, index + 1);
    return ordered[Math.min(index, ordered.length - 1)];
  }
}

function answerList(value: unknown, pointer: string): MockAnswer[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, i) => (isRecord(item) ? [{ ...(item as Omit<MockAnswer, 'pointer'>), pointer: `${pointer}/${i}` }] : []));
}

function escape(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
