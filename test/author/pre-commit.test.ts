/**
 * The hook of .pre-commit-hooks.yaml run by the real pre-commit on a temporary git repository: a bad
 * package file blocks the commit with its finding, a good one passes. The hook runs this checkout's
 * built CLI (PACKAGE_SDK), as a `repo: local` hook with the entry, files and pass_filenames of the file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CLI, ROOT, runCli, scratchDir } from '../support/cli.js';

/** pre-commit is a Debian package (3.0.4); CI runs as root, so the test installs it when it is missing. */
function ensurePreCommit(): void {
  if (spawnSync('pre-commit', ['--version']).status === 0) return;
  const install = (): number | null => spawnSync('apt-get', ['install', '-y', 'pre-commit'], { stdio: 'ignore' }).status;
  if (install() !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' });
    if (install() !== 0) throw new Error('pre-commit is not installed and apt-get install -y pre-commit failed');
  }
}

interface Hook {
  id: string;
  name: string;
  entry: string;
  files: string;
  pass_filenames: boolean;
  require_serial: boolean;
}

describe('pre-commit hook package-sdk-check', () => {
  let repo: string;
  let home: string;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, PRE_COMMIT_HOME: home, PACKAGE_SDK: `${process.execPath} ${CLI}`, NO_COLOR: '1' });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: env(), encoding: 'utf8' });
  const commit = (message: string) => spawnSync('git', ['commit', '-m', message], { cwd: repo, env: env(), encoding: 'utf8' });

  beforeAll(async () => {
    ensurePreCommit();
    repo = scratchDir('package-sdk-hook-');
    home = scratchDir('package-sdk-hook-home-');
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'author@example.com');
    git('config', 'user.name', 'Author');
    const [hook] = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as Hook[];
    // `language: system` runs the entry as written, with this checkout's CLI, instead of installing package-sdk from npm.
    const config = { repos: [{ repo: 'local', hooks: [{ ...hook, language: 'system' }] }] };
    writeFileSync(join(repo, '.pre-commit-config.yaml'), stringify(config));
    const init = await runCli(['init', 'packages/demo'], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
    writeFileSync(join(repo, 'notes.yaml'), 'not: a package file\n'); // outside any package: not checked
    execFileSync('pre-commit', ['install'], { cwd: repo, env: env() });
  });

  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('passes a commit of a good package', () => {
    git('add', '.');
    const result = commit('a new package');
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/package-sdk check\.+Passed/);
  });

  it('blocks a commit whose staged file breaks its package, with the finding', () => {
    const process = join(repo, 'packages/demo/processes/demo.yaml');
    writeFileSync(process, readFileSync(process, 'utf8').replace('taskType: demo-review', 'taskType: demo-reveiw'));
    git('add', 'packages/demo/processes/demo.yaml');
    const result = commit('a typo');
    const output = result.stdout + result.stderr;
    expect(result.status).not.toBe(0);
    expect(output).toMatch(/package-sdk check\.+Failed/);
    expect(output).toContain('unknown_task_type');
    expect(output).toContain("did you mean 'demo-review'?");
    expect(git('log', '--oneline')).not.toContain('a typo');
  });
});
