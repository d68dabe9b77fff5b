/**
 * What `check` remembers of unchanged files ($PACKAGE_SDK_CACHE/check) never changes what it reports: the same
 * findings at the same places from a warm cache, an edited file read afresh, and --no-cache as a first run.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, scratchDir } from '../support/cli.js';
import { overlayCase } from '../support/overlay.js';

const BROKEN = join(ROOT, 'fixtures/check/cli/broken');
const EXPRESSION = overlayCase(join(ROOT, 'fixtures/check/expression_syntax_error/invalid/arrow-for-greater-or-equal'));

describe('check with its cache of parsed files', () => {
  const scratch = scratchDir('check-cache-');
  const env = { PACKAGE_SDK_CACHE: join(scratch, 'cache') };
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(EXPRESSION, { recursive: true, force: true });
  });

  it('reports the same findings from a warm cache, positions inside expressions included', async () => {
    for (const source of [BROKEN, EXPRESSION]) {
      const cold = await runCli(['check', '--json'], { cwd: source, env });
      const warm = await runCli(['check', '--json'], { cwd: source, env });
      const fresh = await runCli(['check', '--json', '--no-cache'], { cwd: source, env });
      expect(JSON.parse(cold.stdout).errors.length).toBeGreaterThan(0);
      expect(warm.stdout).toBe(cold.stdout);
      expect(fresh.stdout).toBe(cold.stdout);
      expect(warm.code).toBe(cold.code);
    }
    expect(readdirSync(join(scratch, 'cache', 'check')).length).toBeGreaterThan(0);
  });

  it('reads an edited file afresh', async () => {
    const work = join(scratch, 'edited');
    cpSync(BROKEN, work, { recursive: true });
    const before = JSON.parse((await runCli(['check', '--json'], { cwd: work, env })).stdout);
    expect(before.errors.map((f: { path: string }) => f.path)).toContain('/spec/displayNme');
    const file = join(work, 'packages/shop/task-types/order-review.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('displayNme', 'displayName'));
    const after = JSON.parse((await runCli(['check', '--json'], { cwd: work, env })).stdout);
    expect(after.errors.map((f: { path: string }) => f.path)).not.toContain('/spec/displayNme');
    expect(after.errors).toHaveLength(before.errors.length - 1);
  });
});
