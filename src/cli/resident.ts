/**
 * The client of a working directory's resident checker (resident-server.ts), a process that keeps the index warm
 * and learns from the file system's events which files changed, so that a check after an edit neither starts the
 * checking code nor stats every file. The client is what a hook or an editor starts on every commit or keystroke,
 * so it loads no more than this module: it sends the arguments, prints the answer and exits with its status.
 *
 * How `check` uses it is decided from its arguments (resident-use.ts): a plain `check` asks the checker when one
 * runs, and one of a large workspace that no checker answered starts one for the next (`startResidentWhenLarge`);
 * `--resident` starts one at once. When no checker answers this process checks (the same report); a checker that
 * cannot start says why in `package-sdk resident status`.
 *
 * One checker per working directory, installation of package-sdk and cache directory: the socket's name hashes the
 * three. A checker whose installation was built anew since it started (an upgrade) leaves the check to the client
 * and exits, and a later check starts one of the new build: the client need not read the build.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../fs/cache-root.js';
import type { Terminal } from '../report/paint.js';

export { residentUse } from './resident-use.js';

/** What a client asks a resident checker: a check (the arguments of `check`), its status, or to stop. */
export type ResidentMessage = { check: ResidentCheck } | { status: true } | { stop: true };

/** A check asked of a resident checker: `check`'s arguments, where, printed on what. */
export interface ResidentCheck {
  argv: string[];
  cwd: string;
  terminal: Terminal;
}

/** What a resident checker answers. */
export type ResidentAnswer =
  /** The check's output and exit status, as a plain `check` prints them. */
  | { stdout: string; exitCode: number }
  /** This process should check: the arguments need the full command (help, `--server`), or the checker failed (`note` says how). */
  | { fallback: true; note?: string }
  | { status: ResidentStatus }
  | { stopped: true };

export interface ResidentStatus {
  pid: number;
  /** The working directory it checks in. */
  root: string;
  version: string;
  startedAt: string;
  requests: number;
  lastRequestAt: string | null;
  /** Folders whose events it follows, and files and folders whose stat it holds from them. */
  watchedFolders: number;
  knownStats: number;
  /** It exits when left idle this long. */
  idleMinutes: number;
  /** Why some folder is not followed (the system's limit of watches, say): its files are stat'ed at every check. */
  unfollowed?: string;
}

/** The longest socket path every platform takes (macOS: 104 bytes with the terminating NUL). */
const SOCKET_PATH_MAX = 100;
/** How long a client waits for an answer before it checks itself (a checker that hangs must not hang a hook). */
const ANSWER_TIMEOUT_MS = 120_000;
/** After a checker failed to start, clients do not start another for this long (each would fail the same way). */
const RETRY_START_AFTER_MS = 10 * 60_000;
/** Errors of a connection that mean no checker listens: it is started, and this process checks. */
const NOBODY_LISTENS = new Set(['ENOENT', 'ENOTDIR', 'ECONNREFUSED']);

/** One of node's modules, loaded when first needed (by `require`: the bundled `check` runs where `import()` cannot). */
function load<T>(name: string): T {
  return createRequire(import.meta.url)(name) as T;
}

/** Where this installation of package-sdk is (two folders above this module, in src/ and dist/ alike, and in a bundle). */
const INSTALLATION = fileURLToPath(new URL('../../', import.meta.url));

/** The socket of the resident checker of `cwd` (a named pipe on Windows). */
export function residentSocket(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const root = cacheRoot(env);
  const name = nameHash([resolve(cwd), INSTALLATION, resolve(root)].join('\0'));
  if (process.platform === 'win32') return `\\\\.\\pipe\\package-sdk-${name}`;
  const beside = join(root, 'resident', `${name}.sock`);
  if (Buffer.byteLength(beside) <= SOCKET_PATH_MAX) return beside;
  return join(tmpdir(), `package-sdk-${process.getuid?.() ?? 'user'}`, `${name}.sock`); // a cache path too long for a socket
}

/**
 * 64 bits of FNV-1a over the UTF-16 units of `text`, in hex: a name, not a secret (a checker also compares the
 * working directory it is sent). node's crypto would cost the client a tenth of its time to load.
 */
function nameHash(text: string): string {
  let [high, low] = [0xcbf29ce4, 0x84222325];
  for (let i = 0; i < text.length; i++) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    // multiply by the 64-bit FNV prime 2^40 + 0x1b3, in 32-bit halves
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (Math.imul(high, 0x1b3) + Math.imul(low, 0x100) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/**
 * Where a checker that could not start leaves the reason: beside its socket's folder (which may be what it could
 * not make), in the temporary folder for a pipe.
 */
export function startFailureFile(socket: string): string {
  if (process.platform === 'win32') return join(tmpdir(), `${socket.slice(socket.lastIndexOf('\\') + 1)}.failed`);
  return join(dirname(dirname(socket)), `resident-${basename(socket, '.sock')}.failed`);
}

/** Sends `message` to the checker at `socket`; undefined when none listens there. */
export async function askResident(socket: string, message: ResidentMessage, timeoutMs = ANSWER_TIMEOUT_MS): Promise<ResidentAnswer | undefined> {
  // A plain check where no checker runs costs one stat: node's sockets are loaded only when there is one to ask.
  if (process.platform !== 'win32' && !existsSync(socket)) return undefined;
  const { connect } = load<typeof import('node:net')>('node:net');
  return new Promise((done) => {
    const connection = connect(socket);
    let text = '';
    connection.setEncoding('utf8');
    connection.setTimeout(timeoutMs, () => {
      connection.destroy();
      done({ fallback: true, note: `the resident checker did not answer within ${timeoutMs / 1000} s` });
    });
    connection.on('connect', () => connection.end(`${JSON.stringify(message)}\n`));
    connection.on('data', (chunk: string) => (text += chunk));
    connection.on('end', () => done(answerOf(text)));
    connection.on('error', (error: NodeJS.ErrnoException) =>
      done(NOBODY_LISTENS.has(error.code ?? '') ? undefined : { fallback: true, note: `the resident checker could not be asked (${error.code ?? error.message})` }));
  });
}

function answerOf(text: string): ResidentAnswer {
  try {
    const answer = JSON.parse(text) as unknown;
    if (typeof answer === 'object' && answer !== null) return answer as ResidentAnswer;
  } catch {
    // below
  }
  return { fallback: true, note: 'the resident checker gave an answer that is not JSON' };
}

/**
 * `check ARGS` asked of the resident checker: its answer printed, and its exit status; undefined when this process
 * should check (no checker ran — with `start` (`--resident`) one is started for the next time; the arguments need
 * the full command; the checker failed, which is said on standard error).
 */
export async function checkThroughResident(argv: readonly string[], start = true): Promise<number | undefined> {
  const cwd = process.cwd();
  const socket = residentSocket(cwd, process.env);
  const answer = await askResident(socket, { check: { argv: [...argv], cwd, terminal: terminalOf(process.stdout, process.env) } });
  if (answer === undefined) {
    if (!start) return undefined;
    const failed = recentStartFailure(socket);
    if (failed === undefined) startResident(cwd, socket);
    else process.stderr.write(`package-sdk: the resident checker could not start (${failed}); this process checks\n`);
    return undefined;
  }
  if ('stdout' in answer && typeof answer.exitCode === 'number') {
    process.stdout.write(answer.stdout);
    return answer.exitCode;
  }
  if ('note' in answer && answer.note !== undefined) process.stderr.write(`package-sdk: ${answer.note}; this process checks\n`);
  return undefined;
}

/** What decides the colours of the report this process prints (the checker renders it). */
export function terminalOf(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Terminal {
  const { FORCE_COLOR, NO_COLOR, TERM } = env;
  return { isTTY: stream.isTTY === true, env: { ...(FORCE_COLOR !== undefined ? { FORCE_COLOR } : {}), ...(NO_COLOR !== undefined ? { NO_COLOR } : {}), ...(TERM !== undefined ? { TERM } : {}) } };
}

/** The reason the last checker of `socket` gave for not starting, when it was lately. */
export function recentStartFailure(socket: string): string | undefined {
  const file = startFailureFile(socket);
  const info = statSync(file, { throwIfNoEntry: false });
  if (info === undefined || info.mtimeMs < Date.now() - RETRY_START_AFTER_MS) return undefined;
  try {
    // the first line, without control characters (a shared temporary folder holds it for a pipe)
    return readFileSync(file, 'utf8').trim().split('\n')[0]!.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ') || 'no reason given';
  } catch {
    return 'no reason given';
  }
}

/**
 * After a plain `check` of `objects` objects in `cwd` that no checker answered, whose workspace is large enough to
 * cost a fresh process several times what a checker's answer costs (`RESIDENT_FROM_OBJECTS`): starts the
 * directory's checker for the next checks, and says so on standard error. Not in CI (`CI` set): a run there checks
 * once, and a process left behind would only hold memory; nor while a checker's start failed lately.
 */
export function startResidentWhenLarge(cwd: string, objects: number, env: NodeJS.ProcessEnv = process.env): void {
  if (inCI(env)) return;
  const socket = residentSocket(cwd, env);
  if (recentStartFailure(socket) !== undefined) return;
  startResident(cwd, socket);
  process.stderr.write(
    `package-sdk: started a resident checker for ${resolve(cwd)} (${objects} objects): it answers the next checks here, and exits ` +
      'when left idle (`package-sdk resident status|stop`; --no-resident or PACKAGE_SDK_RESIDENT=off: never start one)\n',
  );
}

/** Whether this process runs in CI, as the usual CI services say (`CI=true`; `CI=false` or `0` says not). */
function inCI(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI?.toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** Starts the checker of `cwd` in the background, detached from this process (which does not wait for it). */
export function startResident(cwd: string, socket: string): void {
  const { spawn } = load<typeof import('node:child_process')>('node:child_process'); // a client that finds its checker never loads it
  const server = join(INSTALLATION, 'dist/cli/resident-server.js');
  try {
    const child = spawn(process.execPath, [server, resolve(cwd), socket], { cwd, detached: true, stdio: 'ignore', env: process.env, windowsHide: true });
    child.on('error', () => undefined); // a checker that cannot start costs speed, never a result
    child.unref();
  } catch (error) {
    leaveStartFailure(socket, error);
  }
}

/** Leaves why the checker of `socket` could not start, for the next clients and `resident status` (see `recentStartFailure`). */
export function leaveStartFailure(socket: string, error: unknown): void {
  try {
    writeFileSync(startFailureFile(socket), `${(error as Error).message}\n`);
  } catch {
    // nowhere to say it: the next client tries again
  }
}
