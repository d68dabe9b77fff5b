import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGitServer, type GitServer } from './git-http-server.mjs';

/** Real git repositories for the lock tests: authored in a work tree, published to bare repositories. */

export const PROJECT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(PROJECT, 'bin', 'run.js');

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: 'utf8' }).trim();
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

export function manifest(key: string, version = '0.1.0', requires: string[] = []): string {
  const req = requires.length > 0 ? `, requires: [${requires.join(', ')}]` : '';
  return `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${key}\nspec: {version: ${version}${req}}\n`;
}

/** A temporary directory with a bare-repository root (served over HTTP on demand) and a cache. */
export class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), 'package-sdk-lock-'));
  readonly served = join(this.root, 'served');
  readonly cache = join(this.root, 'cache');
  server?: GitServer;

  constructor() {
    mkdirSync(this.served);
  }

  async serve(): Promise<string> {
    this.server ??= await startGitServer(this.served);
    return this.server.url;
  }

  /** A repository `name` with one commit of `files`; the bare copy is published under `served/`. */
  repo(name: string, files: Record<string, string>): Repo {
    return new Repo(this, name, files);
  }

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  async dispose(): Promise<void> {
    await this.server?.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export class Repo {
  readonly work: string;
  readonly bare: string;

  constructor(private readonly sandbox: Sandbox, readonly name: string, files: Record<string, string>) {
    this.work = sandbox.path('work', name);
    this.bare = join(sandbox.served, `${name}.git`);
    mkdirSync(this.work, { recursive: true });
    git(this.work, 'init', '--quiet', '--initial-branch=main');
    git(sandbox.served, 'init', '--quiet', '--bare', this.bare);
    git(this.work, 'remote', 'add', 'origin', this.bare);
    this.commit(files);
  }

  commit(files: Record<string, string>, message = 'change'): string {
    writeFiles(this.work, files);
    git(this.work, 'add', '--all');
    git(this.work, 'commit', '--quiet', '--allow-empty', '-m', message);
    git(this.work, 'push', '--quiet', 'origin', 'main');
    return this.head();
  }

  symlink(target: string, path: string): string {
    symlinkSync(target, join(this.work, path));
    git(this.work, 'add', '--all');
    git(this.work, 'commit', '--quiet', '-m', 'symlink');
    return this.head();
  }

  head(): string {
    return git(this.work, 'rev-parse', 'HEAD');
  }

  /** Creates or moves (force-pushes) a tag to the current commit. */
  tag(name: string): void {
    git(this.work, 'tag', '--force', name);
    git(this.work, 'push', '--quiet', '--force', 'origin', `refs/tags/${name}`);
  }

  deleteTag(name: string): void {
    git(this.work, 'tag', '--delete', name);
    git(this.work, 'push', '--quiet', 'origin', `:refs/tags/${name}`);
  }

  fileUrl(): string {
    return `file://${this.bare}`;
  }

  async httpUrl(): Promise<string> {
    return `${await this.sandbox.serve()}/${this.name}.git`;
  }
}

export interface GitEntry {
  key: string;
  git: string;
  ref: string;
  path?: string;
}

/** Writes an installation file listing git sources and `{key, path}` entries; returns its path. */
export function installation(dir: string, packages: (GitEntry | { key: string; path: string } | string)[], key = 'test-install'): string {
  mkdirSync(dir, { recursive: true });
  const lines = packages.map((p) => `    - ${JSON.stringify(p)}`);
  const file = join(dir, 'packages.yaml');
  writeFileSync(file, `apiVersion: taimen.ai/v1\nkind: Installation\nkey: ${key}\nspec:\n  packages:\n${lines.join('\n') || '    []'}\n`);
  return file;
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a child process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = PROJECT): Promise<CliResult> {
  const inherited = { ...process.env };
  delete inherited.NODE_ENV; // the test runner's, not a user's
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { ...inherited, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ status, stdout, stderr });
      });
  });
}
