/**
 * Peers of the plan/apply tests: a real local core over HTTP in the test process, seeded with the workspace
 * an installation names; an installation copied into a scratch directory (so a test may edit it); a
 * loopback proxy that can stop an apply in the middle of its writes; and the built CLI as a child a test can
 * kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseSeed } from '../../src/server/seed.js';
import { startTestCore, type TestCore } from '../core/support.js';
import { CLI } from '../support/cli.js';
import { overlay } from '../support/overlay.js';

/**
 * An installation the plan/apply suites run on, and the names its assertions use: which objects the first
 * plan adds, which ones a test edits or retires, which variable it leaves out.
 */
export interface Subject {
  /** The installation's directory (absolute, or relative to fixtures/), copied for each test. */
  base: string;
  /** Its installation file, relative to `base`. */
  install: string;
  /** `spec.key` of the installation. */
  installation: string;
  /** The one package it installs, and the range of `engines.control-plane` it declares. */
  package: { key: string; dir: string; engines: string };
  /** The workspace of the variable of kind workspace, seeded in the core. */
  workspace: { variable: string; id: string };
  /** Values of the other variables: none of them may appear in a plan. */
  values: Record<string, string>;
  /** A variable left out, and its description as the manifest gives it. */
  missing: { variable: string; description: string };
  /** Lines of the first plan, as `plan` prints them. */
  firstPlan: RegExp[];
  /** The packs the workspace has once the installation is applied. */
  knowledgePacks: string[];
  process: string;
  workRule: string;
  /** A task type a test gives a new display name. */
  changedTaskType: string;
  /** A task type a person edits in the console, and its display name in the package. */
  consoleTaskType: { key: string; displayName: string };
  /**
   * An apply killed at its third write, then completed: the creates it sends of some kinds, in order, each
   * object once (`POST /api/v1/roles`, …), and the roles there are in the end.
   */
  killed: { creates: string[]; roles: string[] };
}

export const TOKEN = 'plan-test-token';

/** A core in the test process, seeded with the subject's workspace (or nothing), on the given version. */
export function startSubjectCore(subject: Subject, options: { version?: string; seedWorkspace?: boolean } = {}): Promise<TestCore> {
  return startTestCore({
    token: TOKEN,
    ...(options.version ? { version: options.version } : {}),
    seed: parseSeed({ workspaces: options.seedWorkspace === false ? [] : [subject.workspace.id] }),
  });
}

export interface ScratchInstallation {
  dir: string;
  install: string;
  /** The package's directory in the copy. */
  package: string;
  remove(): void;
}

/** The subject's installation in a fresh scratch directory. */
export function copyInstallation(subject: Subject): ScratchInstallation {
  const dir = overlay(subject.base, {}, 'plan-installation-');
  return { dir, install: join(dir, subject.install), package: join(dir, subject.package.dir), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The variables and credentials of a plan of the subject against `core`. */
export function subjectEnv(subject: Subject, core: { url: string }, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    CP_TOKEN: TOKEN, NOTIFICATION_SERVICE_URL: core.url, NOTIFY_TOKEN: TOKEN,
    [subject.workspace.variable]: subject.workspace.id, ...subject.values, ...overrides,
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

/** The bundled example: the field-maintenance installation of fixtures/example. */
export const EXAMPLE: Subject = {
  base: 'example',
  install: 'packages.yaml',
  installation: 'field-maintenance-example',
  package: { key: 'field-maintenance', dir: 'packages/field-maintenance', engines: '>=0.9,<0.11' },
  workspace: { variable: 'MAINTENANCE_WORKSPACE_ID', id: '5b0f6c1e-2a4d-4e8b-9c3f-7d1a2b3c4d5e' },
  values: { FLEET_API_URL: 'https://telematics.fleet-plan.example.org/v3', STORES_API_URL: 'https://stock.stores-plan.example.org/api' },
  missing: { variable: 'FLEET_API_URL', description: 'API of the fleet telematics the observer polls for faults and run hours' },
  firstPlan: [
    /^ {2}\+ Role\/maintenance-planner \(field-maintenance\) — will be created$/m,
    /^ {2}\+ Process\/work-order: create$/m,
    /^ {2}\+ TaskType\/site-inspection: create$/m,
    /^ {2}\+ KnowledgePack\/equipment@1 \(field-maintenance\)/m,
    /^ {2}\+ NotificationRule\/parts-approval-requested/m,
  ],
  knowledgePacks: ['default@1', 'equipment@1'],
  process: 'work-order',
  workRule: 'service-interval-due',
  changedTaskType: 'site-inspection',
  consoleTaskType: { key: 'repair-work', displayName: 'Repair a machine' },
  killed: {
    creates: [
      'POST /api/v1/workspace-types', 'POST /api/v1/workspace-types', 'POST /api/v1/capabilities',
      'POST /api/v1/roles', 'POST /api/v1/roles', 'POST /api/v1/roles',
    ],
    roles: ['field-technician', 'maintenance-planner', 'stores-manager'],
  },
};
