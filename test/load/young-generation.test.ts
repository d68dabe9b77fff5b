/**
 * The loader holds V8's young generation at two semi-spaces of 8 MB once it has grown there (see
 * src/load/young-generation.ts). Run in a process of its own, since the setting is the process's: a loader that
 * keeps what it parses (as a check keeps its documents) grows the young generation to its largest without the
 * hold, and stops at the held size with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { keptWhileLoading } from '../support/loading.js';

const BUILT = join(ROOT, 'dist/load/young-generation.js');

/**
 * The size of the young generation (MiB) after 6,000 "files" of 200 kept objects each, with or without the hold,
 * or held and then released before 6,000 more.
 */
function youngGenerationAfterLoading(hold: boolean | 'then released'): number {
  if (!existsSync(BUILT)) throw new Error('build first: npm run build (npm test does it)');
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { holdYoungGeneration, releaseYoungGeneration } from ${JSON.stringify(pathToFileURL(BUILT).href)};
    ${keptWhileLoading(hold !== false)}
    ${hold === 'then released' ? `releaseYoungGeneration(); ${keptWhileLoading(false)}` : ''}
    process.stdout.write(String(getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return Number(child.stdout) / 2 ** 20;
}

describe('the young generation while loading', () => {
  it('grows to its largest without the hold, stops at two semi-spaces of 8 MB with it, and grows again once released', () => {
    expect(youngGenerationAfterLoading(false)).toBe(32);
    expect(youngGenerationAfterLoading(true)).toBe(16);
    expect(youngGenerationAfterLoading('then released')).toBe(32);
  });
});
