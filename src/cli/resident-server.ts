/**
 * The resident checker of one working directory (the client is resident.ts; how `check` uses it, resident-use.ts). It answers each
 * client's `check` as a fresh process would — the same report, printed the same way, with the same exit status —
 * from a process whose code is loaded and optimised, and hands each run the stats of the files no event of the
 * file system named since the last run (load/watched-stats.ts): after an edit, only what changed is stat'ed, read
 * and checked again. Requests are answered one at a time. It exits when left idle (`PACKAGE_SDK_RESIDENT_IDLE_MINUTES`,
 * default 30), when asked to stop, or when its socket is removed or taken by another (`cache prune --all`, say).
 *
 * Run by `startResident` as `node dist/cli/resident-server.js ROOT SOCKET`; a checker that cannot start leaves
 * the reason beside the socket (`startFailureFile`), which `package-sdk resident status` shows.
 */
import { chmodSync, lstatSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { indexName } from '../load/parse-cache.js';
import { buildStamp } from '../load/build-stamp.js';
import { WatchedStats } from '../load/watched-stats.js';
import { parseCheckArgs, printedText, runCheckRequest } from './check.js';
import { askResident, leaveStartFailure, startFailureFile, type ResidentAnswer, type ResidentCheck, type ResidentMessage, type ResidentStatus } from './resident.js';

const IDLE_MINUTES = 30;
/** A request larger than this is not a client's. */
const MESSAGE_MAX = 1 << 20;
/** How often the checker looks whether its socket is still there. */
const SOCKET_LOOK_MS = 60_000;

export interface ResidentOptions {
  /** The working directory it checks in (absolute). */
  root: string;
  socket: string;
  idleMinutes?: number;
  /** What names the build it runs (`buildStamp`), read again at each check: a changed one ends the checker. */
  build?: () => string;
}

export class ResidentChecker {
  private server: Server | undefined;
  private readonly watched = new WatchedStats();
  private queue: Promise<unknown> = Promise.resolve();
  private requests = 0;
  private lastRequestAt: Date | undefined;
  private readonly startedAt = new Date();
  private idleTimer: NodeJS.Timeout | undefined;
  private socketTimer: NodeJS.Timeout | undefined;
  private socketInode: number | undefined;
  private closing: Promise<void> | undefined;
  private markClosed: () => void = () => undefined;
  private readonly closed = new Promise<void>((done) => (this.markClosed = done));
  private readonly version: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  private readonly idleMs: number;
  private readonly buildNow: () => string;
  private readonly build: string;

  constructor(private readonly options: ResidentOptions) {
    this.idleMs = (options.idleMinutes ?? IDLE_MINUTES) * 60_000;
    this.buildNow = options.build ?? buildStamp;
    this.build = this.buildNow();
  }

  /** Listens at the socket; false when another checker answers there already. */
  async listen(): Promise<boolean> {
    const { socket } = this.options;
    if (process.platform !== 'win32') ownFolder(dirname(socket));
    const server = createServer({ allowHalfOpen: true }, (connection) => this.connected(connection)); // the client ends its side, then reads the answer
    try {
      await listenAt(server, socket);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if ((await askResident(socket, { status: true }, 5_000)) !== undefined) return false;
      rmSync(socket, { force: true }); // left by a checker that died
      await listenAt(server, socket);
    }
    this.server = server;
    rmSync(startFailureFile(socket), { force: true });
    this.armIdle();
    if (process.platform !== 'win32') {
      this.socketInode = statSync(socket).ino;
      this.socketTimer = setInterval(() => this.ownsSocket() || void this.close(), SOCKET_LOOK_MS);
      this.socketTimer.unref();
    }
    return true;
  }

  /** Settles once the checker closed. */
  get ended(): Promise<void> {
    return this.closed;
  }

  /** Stops listening and following folders; the socket goes. Resolves once done. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((done) => {
      clearTimeout(this.idleTimer);
      clearInterval(this.socketTimer);
      this.watched.close();
      if (this.server === undefined) return done();
      this.server.close(() => done());
      if (this.ownsSocket()) rmSync(this.options.socket, { force: true });
    }).then(() => this.markClosed());
    return this.closing;
  }

  /** Whether the socket's path is still this checker's (not removed, nor another checker's since). */
  private ownsSocket(): boolean {
    return this.socketInode !== undefined && statSync(this.options.socket, { throwIfNoEntry: false })?.ino === this.socketInode;
  }

  /** What `package-sdk resident status` shows. */
  status(): ResidentStatus {
    return {
      pid: process.pid,
      root: this.options.root,
      version: this.version,
      startedAt: this.startedAt.toISOString(),
      requests: this.requests,
      lastRequestAt: this.lastRequestAt?.toISOString() ?? null,
      watchedFolders: this.watched.folders,
      knownStats: this.watched.size,
      idleMinutes: this.idleMs / 60_000,
      ...(this.watched.limit !== undefined ? { unfollowed: this.watched.limit } : {}),
    };
  }

  private connected(connection: Socket): void {
    let text = '';
    connection.setEncoding('utf8');
    connection.on('error', () => undefined); // a client that went away
    connection.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MESSAGE_MAX) connection.destroy();
    });
    connection.on('end', () => {
      const message = messageOf(text);
      const answered = this.queue.then(() => this.answer(message));
      this.queue = answered.catch(() => undefined);
      void answered.then(
        (answer) => connection.end(`${JSON.stringify(answer)}\n`, () => 'stopped' in answer && void this.close()),
        (error: unknown) => connection.end(`${JSON.stringify({ fallback: true, note: `the resident checker failed: ${(error as Error).message}` })}\n`),
      );
    });
  }

  private async answer(message: ResidentMessage | undefined): Promise<ResidentAnswer> {
    if (message === undefined) return { fallback: true, note: 'the resident checker was sent something it does not read' };
    if ('status' in message) return { status: this.status() };
    if ('stop' in message) return { stopped: true };
    clearTimeout(this.idleTimer);
    try {
      const answer = await this.check(message.check);
      if ('stdout' in answer) {
        this.requests++;
        this.lastRequestAt = new Date();
      }
      return answer;
    } finally {
      this.armIdle();
    }
  }

  private async check({ argv, cwd, terminal }: ResidentCheck): Promise<ResidentAnswer> {
    if (this.buildNow() !== this.build) {
      void this.close(); // built anew since it started: the next client starts a checker of the new build
      return { fallback: true };
    }
    const asked = Array.isArray(argv) && argv.every((arg) => typeof arg === 'string') ? parseCheckArgs(argv) : undefined;
    // Another working directory (a name that hashes alike) is left to the client.
    if (asked === undefined || typeof cwd !== 'string' || resolve(cwd) !== this.options.root) return { fallback: true };
    const request = { ...asked, cwd: this.options.root, terminal };
    const outcome = await this.watched.aroundRun(indexName(this.options.root, this.build), (earlier) => runCheckRequest(request, this.version, earlier));
    return { stdout: printedText(request, outcome), exitCode: outcome.exitCode };
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
  }
}

function messageOf(text: string): ResidentMessage | undefined {
  try {
    const message = JSON.parse(text) as unknown;
    if (typeof message !== 'object' || message === null) return undefined;
    if ('status' in message || 'stop' in message) return message as ResidentMessage;
    if ('check' in message && typeof message.check === 'object' && message.check !== null) return message as ResidentMessage;
  } catch {
    // below
  }
  return undefined;
}

function listenAt(server: Server, socket: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(socket, () => {
      server.off('error', fail);
      done();
    });
  });
}

/** The socket's folder, made when missing and kept to this user alone (whoever may connect may have files read as this user). */
function ownFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const info = lstatSync(folder);
  if (!info.isDirectory() || (process.getuid !== undefined && info.uid !== process.getuid())) throw new Error(`${folder} is not a folder of this user`);
  if ((info.mode & 0o077) !== 0) chmodSync(folder, 0o700);
}

/** `node dist/cli/resident-server.js ROOT SOCKET`, as `startResident` runs it. */
async function serveFromCommandLine(root: string, socket: string): Promise<void> {
  const idle = Number(process.env.PACKAGE_SDK_RESIDENT_IDLE_MINUTES);
  const checker = new ResidentChecker({ root: resolve(root), socket, ...(idle > 0 ? { idleMinutes: idle } : {}) });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void checker.close().then(() => process.exit(0)));
  try {
    if (!(await checker.listen())) return; // another checker was quicker
  } catch (error) {
    leaveStartFailure(socket, error);
    process.exitCode = 1;
    return;
  }
  process.once('uncaughtException', () => void checker.close().then(() => process.exit(1)));
  await checker.ended;
  process.exit(0); // nothing of the checker's is left to wait for
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [root, socket] = process.argv.slice(2);
  if (root !== undefined && socket !== undefined) await serveFromCommandLine(root, socket);
}
