// Bad input never crashes the loader: damaged copies of our real files give findings at real places.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/load/json.js';
import { lineStartsOf } from '../../src/load/load-finding.js';
import { parseYaml } from '../../src/load/yaml.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
const SOURCES = [
  ['example/packages/field-maintenance/task-types/repair-work.yaml', parseYaml],
  ['packages/venue-booking/processes/booking.yaml', parseYaml],
  ['example/packages/field-maintenance/views/work-order-card.yaml', parseYaml],
  ['schema/plan/valid-plan.json', parseJson],
] as const;
const DAMAGE = [':', '-', '"', "'", '[', ']', '{', '}', '&a', '*a', '!!', '\t', '\n', '  ', '#', '|', '>', '\\', '%', '@', ',', '?', '\u0000'];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe.each(SOURCES)('damaged copies of %s', (file, parse) => {
  const text = readFileSync(resolve(FIXTURES, file), 'utf8');

  it('give findings within the file, never an exception', () => {
    const next = random(file.length);
    for (let round = 0; round < 150; round++) {
      const at = Math.floor(next() * text.length);
      const damage = DAMAGE[Math.floor(next() * DAMAGE.length)]!;
      const cut = next() < 0.2 ? Math.floor(next() * 40) : 0;
      const damaged = text.slice(0, at) + damage + text.slice(at + cut);
      const result = parse(damaged, file);
      const lines = lineStartsOf(damaged).length;
      for (const finding of result.findings) {
        expect(finding.line, `round ${round}: ${finding.message}`).toBeGreaterThanOrEqual(1);
        expect(finding.line).toBeLessThanOrEqual(lines);
        expect(finding.column).toBeGreaterThanOrEqual(1);
        expect(finding.message.length).toBeGreaterThan(0);
      }
      if (result.document === undefined) expect(result.findings.length, `round ${round}`).toBeGreaterThan(0);
    }
  });
});
