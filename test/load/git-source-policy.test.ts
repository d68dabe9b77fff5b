/**
 * One policy for git sources in every command: `check --install` (and `test --install`, which checks first)
 * takes the loopback http and file:// sources that `lock` and `plan` take, and a URL no command takes is one
 * finding, git_url_invalid, with a hint that fits the mistake — not a second schema_violation quoting a regex.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';

const dir = mkdtempSync(join(tmpdir(), 'package-sdk-git-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function findingsOf(git: string): Promise<string[]> {
  writeFileSync(join(dir, 'packages.yaml'), `apiVersion: taimen.ai/v1\nkind: Installation\nkey: local\nspec:\n  packages:\n    - {key: fleet, git: "${git}", ref: v0.2.0}\n`);
  const { report } = await check({ cwd: dir, install: 'packages.yaml' });
  return [...report.errors, ...report.warnings].map((finding) => `${finding.code}: ${finding.hint ?? ''}`);
}

describe('git sources of an installation in check --install', () => {
  it.each(['http://127.0.0.1:8123/fleet.git', 'http://localhost/fleet.git', 'file:///srv/git/fleet'])('%s is taken as lock and plan take it: only the lock is missing', async (git) => {
    expect(await findingsOf(git)).toEqual(['lock_required: pin the sources: package-sdk lock --install packages.yaml']);
  });

  it.each([
    ['http://git.example.com/fleet.git', 'plain http reaches only this machine (127.0.0.1, localhost, [::1]): use https:// for another host'],
    ['https://robot:secret@git.example.com/fleet.git', 'credentials belong in the git credential helper, not in the installation'],
    ['file://srv/git/fleet', 'a local repository is file:///absolute/path (three slashes)'],
    ['ftp://git.example.com/fleet.git', 'for example https://github.com/acme/fleet.git or git@github.com:acme/fleet.git'],
  ])('%s is one git_url_invalid with a hint that fits', async (git, hint) => {
    expect(await findingsOf(git)).toEqual([`git_url_invalid: ${hint}`]);
  });
});
