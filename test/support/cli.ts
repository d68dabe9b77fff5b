/**
 * The built CLI as a user runs it: `node bin/run.js …` in a child process (end-to-end tests never import
 * the commands). `npm test` builds first; run `npm run build` before running these suites on their own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'bin/run.js');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      // As a user runs it: vitest's NODE_ENV=test would put oclif in its development mode.
      env: { ...process.env, NODE_ENV: undefined, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export function scratchDir(prefix = 'package-sdk-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface RunningCli {
  /** The first line the command printed on stdout (a server's start line). */
  firstLine: string;
  /** SIGTERM, then everything it printed and its exit status. */
  stop(): Promise<CliOutcome>;
}

/** The built CLI as a long-running child (`core serve`): resolves once it printed its first line. */
export function startCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const closed = new Promise<CliOutcome>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve({ firstLine: stdout.slice(0, end), stop: () => (child.kill('SIGTERM'), closed) });
    });
    void closed.then((outcome) => reject(new Error(`${args.join(' ')} exited with ${outcome.code} before printing a line: ${outcome.stderr}`)));
  });
}
