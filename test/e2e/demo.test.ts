/** `npm start` must keep working: the demo runs check → test → lock → plan → apply → plan on the bundled example. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

describe('npm start (scripts/demo.mjs)', () => {
  it('takes the bundled example through every step and ends with nothing left to do', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts/demo.mjs')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(result.stderr).not.toMatch(/failed/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^ok: packages 1, objects \d+, tests \d+ \(\d+ notes\)$/m); // notes: what the core skips
    expect(result.stdout).toMatch(/^\d+ passed, 0 failed$/m);
    expect(result.stdout).toContain('written packages.lock');
    expect(result.stdout).toMatch(/^Plan: \d+ to add, 0 to change, 0 to retire\.$/m);
    expect(result.stdout).toMatch(/applied plan sha256:[0-9a-f]{64} .*: \d+ changes written/);
    expect(result.stdout.split('=== 6/6')[1]).toContain('no changes');
  });
});
