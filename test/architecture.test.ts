/**
 * The layering of src/ (docs/architecture.md), checked by dependency-cruiser with the project's
 * .dependency-cruiser.cjs: no circle, no import up a floor, no rule importing a rule, no import() across
 * folders outside the commands and the composition root. A small tree that breaks each rule once proves the
 * check can fail.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function violations(cwd: string): Promise<{ rule: string; from: string; to: string }[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 << 20 })
    .catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? '' })); // exits non-zero on violations
  const result = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('the layering of src/', () => {
  it('has no circle, no upward import, no rule importing a rule and no import() across folders but where commands are composed', async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it('is a check that fails: each rule finds its one breach in fixtures/architecture, and nothing else', async () => {
    expect(await violations(join(ROOT, 'fixtures/architecture'))).toEqual([
      { rule: 'dynamic-import-only-in-commands-and-cli', from: 'src/plan/plan.ts', to: 'src/server/local.ts' },
      { rule: 'every-folder-has-a-floor', from: 'src/extra/helper.ts', to: 'src/model/finding.ts' },
      { rule: 'no-circular', from: 'src/model/a.ts', to: 'src/model/b.ts' },
      { rule: 'no-rule-imports-a-rule', from: 'src/check/rules/one.ts', to: 'src/check/rules/two.ts' },
      { rule: 'no-upward-from-json-fs', from: 'src/json/pointer.ts', to: 'src/model/finding.ts' },
      { rule: 'no-upward-from-plan', from: 'src/plan/plan.ts', to: 'src/server/local.ts' },
    ]);
  });
});
