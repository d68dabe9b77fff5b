/**
 * Peers of the plan/apply end-to-end tests: the local core as a child process (`core serve`), the claims
 * example copied into a scratch directory (so a test may edit it), and a loopback proxy that can stop an
 * apply in the middle of its writes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI, ROOT, scratchDir } from '../support/cli.js';

export const CLAIMS_CORPUS = join(ROOT, '../shared/corpus/claims');
export const WORKSPACE = '11111111-2222-4333-8444-555555555555';
export const HELPDESK_URL = 'https://helpdesk.example.com/api';
export const TOKEN = 'plan-test-token';

export interface CoreProcess {
  url: string;
  dataDir: string;
  /** `{Authorization, Content-Type}` for direct calls. */
  call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** `package-sdk core serve --port 0` with a seed of the claims workspace, until `stop()`. */
export async function startCoreProcess(options: { version?: string; seedWorkspace?: boolean } = {}): Promise<CoreProcess> {
  const dataDir = scratchDir('plan-core-');
  const seed = join(dataDir, 'seed.yaml');
  writeFileSync(seed, options.seedWorkspace === false ? 'workspaces: []\n' : `workspaces: [${WORKSPACE}]\n`);
  const args = [CLI, 'core', 'serve', '--port', '0', '--data', dataDir, '--token', TOKEN, '--seed', seed, '--json',
    ...(options.version ? ['--version', options.version] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`core serve exited ${code}: ${err}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    url,
    dataDir,
    async call(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The claims example in a fresh scratch directory: `dir/packages.yaml`, `dir/claims/…`. */
export function copyClaims(): { dir: string; install: string; remove(): void } {
  const dir = scratchDir('plan-claims-');
  cpSync(CLAIMS_CORPUS, dir, { recursive: true });
  return { dir, install: join(dir, 'packages.yaml'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The variables and credentials of a claims plan against `core`. */
export function claimsEnv(core: { url: string }, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    CP_TOKEN: TOKEN, NOTIFICATION_SERVICE_URL: core.url, NOTIFY_TOKEN: TOKEN,
    CLAIMS_WORKSPACE_ID: WORKSPACE, HELPDESK_URL, ...overrides,
  };
}

/** Is this request a write of apply (not a plan, validation or dry run, which change nothing)? */
function isWrite(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return request.method !== 'GET' && !url.includes(':plan') && !url.includes(':validate') && !url.includes('dryRun=true');
}

export interface CuttingProxy {
  url: string;
  /** Writes that reached the core. */
  writes: string[];
  /** At the `n`-th write: call `cut` (kill the client) and drop the request, never forwarding it. */
  cutAt(n: number, cut: () => void): void;
  close(): Promise<void>;
}

/** A loopback HTTP proxy in front of the core, transparent until told to cut. */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const writes: string[] = [];
  let cut: { at: number; action: () => void } | undefined;
  let seen = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (isWrite(request)) {
        seen += 1;
        if (cut && seen === cut.at) {
          cut.action();
          cut = undefined;
          request.socket.destroy();
          return;
        }
        writes.push(`${request.method} ${request.url}`);
      }
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          response.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => request.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    cutAt(n, action) {
      seen = 0;
      cut = { at: n, action };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The built CLI as a child whose process a test can kill. */
export function spawnCli(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}
