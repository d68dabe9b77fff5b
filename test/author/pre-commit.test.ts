/**
 * The hook of .pre-commit-hooks.yaml run by the real pre-commit on a temporary git repository: a bad
 * package file blocks the commit with its finding, a good one passes. First as a `repo: local` hook with the
 * entry, files and pass_filenames of the file, running this checkout's built CLI (PACKAGE_SDK); then installed
 * the way a user installs it — `repo:` a clone of this repository, `rev:` its tag — by pre-commit itself.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { checkoutRepository } from '../support/checkout.js';
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
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env, PRE_COMMIT_HOME: home, PACKAGE_SDK: `${process.execPath} ${CLI}`, NO_COLOR: '1', PACKAGE_SDK_CACHE: join(home, 'cache'), PACKAGE_SDK_RESIDENT_IDLE_MINUTES: '1',
  });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: env(), encoding: 'utf8' });
  const commit = (message: string) => spawnSync('git', ['commit', '-m', message], { cwd: repo, env: env(), encoding: 'utf8' });
  let hook: Hook;

  beforeAll(async () => {
    ensurePreCommit();
    repo = scratchDir('package-sdk-hook-');
    home = scratchDir('package-sdk-hook-home-');
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'author@example.com');
    git('config', 'user.name', 'Author');
    [hook] = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as [Hook];
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

  it('passes its args to check: with --resident, the resident checker it starts answers the next commits', async () => {
    writeFileSync(join(repo, '.pre-commit-config.yaml'), stringify({ repos: [{ repo: 'local', hooks: [{ ...hook, language: 'system', args: ['--resident'] }] }] }));
    const process = join(repo, 'packages/demo/processes/demo.yaml');
    writeFileSync(process, `${readFileSync(process, 'utf8').replace('taskType: demo-reveiw', 'taskType: demo-review')}# checked by the resident checker\n`);
    git('add', '.');
    const first = commit('a comment');
    expect(first.status, first.stdout + first.stderr).toBe(0);
    const status = async () => JSON.parse((await runCli(['resident', 'status', '--json'], { cwd: repo, env: env() })).stdout) as { running: boolean; status?: { requests: number } };
    for (let tries = 0; tries < 30 && !(await status()).running; tries++) await new Promise((done) => setTimeout(done, 100));
    expect((await status()).running, "started by the first commit's check").toBe(true);
    writeFileSync(process, readFileSync(process, 'utf8').replace('taskType: demo-review', 'taskType: demo-reveiw'));
    git('add', 'packages/demo/processes/demo.yaml');
    const typo = commit('the typo again');
    expect(typo.status).not.toBe(0);
    expect(typo.stdout + typo.stderr).toContain('unknown_task_type');
    expect((await status()).status?.requests, 'answered by the resident checker').toBe(1);
    await runCli(['resident', 'stop'], { cwd: repo, env: env() });
  });
});

/** Every file under `dir` whose name matches `pattern` (native modules, their build folders). */
function filesNamed(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => pattern.test(path));
}

describe('pre-commit hook package-sdk-check, installed by pre-commit from a tag of this repository', () => {
  const scratch = scratchDir('package-sdk-hook-install-');
  const source = join(scratch, 'package-sdk');
  const repo = join(scratch, 'packages');
  const home = join(scratch, 'pre-commit-home');
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, PRE_COMMIT_HOME: home, NO_COLOR: '1', PACKAGE_SDK: '' });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: env(), encoding: 'utf8' });
  let cost: { wall: number; cpu: number };

  beforeAll(async () => {
    ensurePreCommit();
    checkoutRepository(source, 'v0.1.0');
    execFileSync('mkdir', ['-p', repo]);
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'author@example.com');
    git('config', 'user.name', 'Author');
    writeFileSync(join(repo, '.pre-commit-config.yaml'), stringify({ repos: [{ repo: source, rev: 'v0.1.0', hooks: [{ id: 'package-sdk-check' }] }] }));
    const init = await runCli(['init', 'packages/demo'], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
    // bash's `time`: the wall clock, and the processor time of pre-commit and every process it waited for.
    const install = spawnSync('bash', ['-c', 'TIMEFORMAT="%R %U %S"; time pre-commit install-hooks'], { cwd: repo, env: env(), encoding: 'utf8' });
    expect(install.status, install.stdout + install.stderr).toBe(0);
    const [wall, user, system] = install.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
    cost = { wall: wall!, cpu: user! + system! };
    execFileSync('pre-commit', ['install'], { cwd: repo, env: env() });
  }, 600_000);

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it(`installs compiling no native code, with the CEL library's patch applied, in under 90 s of processor time`, () => {
    const [environment] = readdirSync(home).filter((name) => existsSync(join(home, name, 'package.json')));
    const installed = join(home, environment!, 'node_env-system/lib/node_modules/package-sdk');
    expect(existsSync(join(installed, 'bin/run.js'))).toBe(true);
    expect(filesNamed(join(home, environment!, 'node_env-system'), /(^|\/)(better-sqlite3|[^/]+\.node)$/)).toEqual([]);
    expect(readFileSync(join(installed, 'node_modules/@marcbachmann/cel-js/lib/macros.js'), 'utf8')).toContain('The operand of the selection may be any expression');
    // The wall clock depends on what else the machine runs; the processor time of the install does not.
    console.log(`pre-commit install-hooks: ${cost.wall.toFixed(1)} s, ${cost.cpu.toFixed(1)} s of processor time`);
    expect(cost.cpu).toBeLessThan(90);
  });

  it('passes a good package and blocks a commit whose staged file breaks its package, with the finding', () => {
    git('add', '.');
    const good = spawnSync('git', ['commit', '-m', 'a new package'], { cwd: repo, env: env(), encoding: 'utf8' });
    expect(good.status, good.stdout + good.stderr).toBe(0);
    const process = join(repo, 'packages/demo/processes/demo.yaml');
    writeFileSync(process, readFileSync(process, 'utf8').replace('taskType: demo-review', 'taskType: demo-reveiw'));
    git('add', 'packages/demo/processes/demo.yaml');
    const bad = spawnSync('git', ['commit', '-m', 'a typo'], { cwd: repo, env: env(), encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/package-sdk check\.+Failed/);
    expect(bad.stdout + bad.stderr).toContain('unknown_task_type');
  });
});
