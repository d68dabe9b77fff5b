/**
 * `check --resident` as a hook runs it: the built CLI, the resident checker it starts in the background, a
 * working directory changing between commits, `resident status` and `resident stop`; a socket left by a checker
 * that died, and a checker that cannot start. And a plain `check`, which asks a checker that runs and starts one
 * after checking a large workspace — not in CI, nor when told not to.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir, type CliOutcome } from '../support/cli.js';
import { overlay } from '../support/overlay.js';

const scratch = scratchDir('resident-e2e-');
const dirs: string[] = [scratch];
/** Each case has a cache, and so checkers, of its own; one a failed case leaves exits once idle a minute, or its socket removed. */
const envOf = (cache: string) => ({ PACKAGE_SDK_CACHE: join(scratch, cache), PACKAGE_SDK_RESIDENT_IDLE_MINUTES: '1' });
/** As a user's shell has it: no word on the resident checker (the suite's config says off), not in CI. */
const userEnvOf = (cache: string) => ({ ...envOf(cache), PACKAGE_SDK_RESIDENT: undefined, CI: undefined });

afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function example(): string {
  const dir = overlay('example');
  dirs.push(dir);
  return dir;
}

interface Status {
  running: boolean;
  socket: string;
  status?: { requests: number; root: string };
  startFailure?: string;
}

async function statusOf(cwd: string, env: NodeJS.ProcessEnv): Promise<Status> {
  const { stdout } = await runCli(['resident', 'status', '--json'], { cwd, env });
  return JSON.parse(stdout) as Status;
}

/** Waits until the checker started by a first `check --resident` answers. */
async function started(cwd: string, env: NodeJS.ProcessEnv): Promise<Status> {
  for (let tries = 0; tries < 100; tries++) {
    const status = await statusOf(cwd, env);
    if (status.running) return status;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('the resident checker did not start');
}

const same = (outcome: CliOutcome) => ({ code: outcome.code, stdout: outcome.stdout });

describe('check --resident', () => {
  it('starts a checker on first use, which then answers as check does, edit after edit, until stopped', async () => {
    const cwd = example();
    const env = envOf('running');
    const plain = await runCli(['check'], { cwd, env });
    expect(same(await runCli(['check', '--resident'], { cwd, env })), 'checked here, the checker started').toEqual(same(plain));
    expect((await started(cwd, env)).status?.requests).toBe(0);
    expect(same(await runCli(['check', '--resident'], { cwd, env }))).toEqual(same(plain));
    const role = join(cwd, 'packages/field-maintenance/roles/field-technician.yaml');
    writeFileSync(role, readFileSync(role, 'utf8').replace('kind: Role', 'kind: Rol'));
    const broken = await runCli(['check', '--resident', '--json'], { cwd, env });
    expect(broken.code).toBe(1);
    expect(same(broken)).toEqual(same(await runCli(['check', '--no-cache', '--json'], { cwd, env })));
    const help = await runCli(['check', '--resident', '--help'], { cwd, env });
    expect(help.stdout, 'the full command helps').toContain('--resident');
    expect((await statusOf(cwd, env)).status?.requests, 'two checks answered; help left to the client').toBe(2);

    const stopped = await runCli(['resident', 'stop', '--json'], { cwd, env });
    expect(JSON.parse(stopped.stdout)).toEqual({ stopped: true });
    const after = await statusOf(cwd, env);
    expect(after.running).toBe(false);
    expect(JSON.parse((await runCli(['resident', 'stop', '--json'], { cwd, env })).stdout)).toEqual({ stopped: false });
  });

  it('takes the place of a checker that died and left its socket', async () => {
    const cwd = example();
    const env = envOf('stale');
    const { socket } = await statusOf(cwd, env);
    mkdirSync(join(socket, '..'), { recursive: true });
    writeFileSync(socket, ''); // not a socket: nobody listens there
    const plain = await runCli(['check'], { cwd, env });
    expect(same(await runCli(['check', '--resident'], { cwd, env }))).toEqual(same(plain));
    await started(cwd, env);
    expect(same(await runCli(['check', '--resident'], { cwd, env }))).toEqual(same(plain));
    expect((await statusOf(cwd, env)).status?.requests).toBe(1);
    await runCli(['resident', 'stop'], { cwd, env });
  });

  it('checks in the process, and says why, when a checker cannot start', async () => {
    const cwd = example();
    const env = envOf('refused');
    mkdirSync(join(scratch, 'refused'), { recursive: true });
    writeFileSync(join(scratch, 'refused/resident'), 'a file where the sockets folder would be');
    const plain = await runCli(['check'], { cwd, env });
    const first = await runCli(['check', '--resident'], { cwd, env });
    expect(same(first)).toEqual(same(plain));
    let status = await statusOf(cwd, env);
    for (let tries = 0; tries < 100 && status.startFailure === undefined; tries++) {
      await new Promise((done) => setTimeout(done, 100));
      status = await statusOf(cwd, env);
    }
    expect(status).toMatchObject({ running: false, startFailure: expect.stringContaining('resident') });
    const next = await runCli(['check', '--resident'], { cwd, env });
    expect(same(next)).toEqual(same(plain));
    expect(next.stderr).toContain('package-sdk: the resident checker could not start (');
  });
});

/** A workspace of two packages of roles, `objects` in all, checked as `check --package a --package b`. */
function workspaceOf(objects: number): { cwd: string; args: string[]; addRole: () => void } {
  const cwd = scratchDir('resident-auto-');
  dirs.push(cwd);
  const role = (pkg: string, i: number) => writeFileSync(join(cwd, pkg, 'roles', `${pkg}${i}.yaml`), `apiVersion: taimen.ai/v1\nkind: Role\nkey: ${pkg}${i}\nspec: {name: Role ${pkg}${i}}\n`);
  const counts = { a: Math.ceil(objects / 2), b: Math.floor(objects / 2) };
  for (const [pkg, count] of Object.entries(counts)) {
    mkdirSync(join(cwd, pkg, 'roles'), { recursive: true });
    writeFileSync(join(cwd, pkg, 'package.yaml'), `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${pkg}\nspec:\n  version: 1.0.0\n  displayName: ${pkg}\n`);
    for (let i = 0; i < count; i++) role(pkg, i);
  }
  return { cwd, args: ['check', '--package', 'a', '--package', 'b'], addRole: () => role('b', counts.b++) };
}

const STARTED = 'package-sdk: started a resident checker for ';

describe('a plain check', () => {
  it('starts the checker after checking 1,000 objects or more, which answers the next plain checks', async () => {
    const { cwd, args, addRole } = workspaceOf(999);
    const env = userEnvOf('auto');
    const below = await runCli(args, { cwd, env });
    expect([below.code, below.stdout.trim().split('\n').at(-1), below.stderr]).toEqual([0, 'ok: packages 2, objects 999, tests 0', '']);
    addRole();
    const first = await runCli(args, { cwd, env });
    expect(first.stderr).toBe(`${STARTED}${cwd} (1000 objects): it answers the next checks here, and exits when left idle (\`package-sdk resident status|stop\`; --no-resident or PACKAGE_SDK_RESIDENT=off: never start one)\n`);
    expect((await started(cwd, env)).status?.requests).toBe(0);
    const answered = await runCli(args, { cwd, env });
    expect(same(answered)).toEqual(same(first));
    expect(answered.stderr).toBe('');
    expect((await statusOf(cwd, env)).status?.requests).toBe(1);
    expect(same(await runCli([...args, '--no-resident'], { cwd, env }))).toEqual(same(first));
    expect(same(await runCli(args, { cwd, env: { ...env, PACKAGE_SDK_RESIDENT: 'off' } }))).toEqual(same(first));
    expect((await statusOf(cwd, env)).status?.requests, 'neither asked it').toBe(1);
    await runCli(['resident', 'stop'], { cwd, env });
  });

  it('starts none in CI, with --no-cache, --no-resident or PACKAGE_SDK_RESIDENT=off', async () => {
    const { cwd, args } = workspaceOf(1000);
    const env = userEnvOf('not-started');
    for (const [extra, more] of [[[], { CI: 'true' }], [['--no-cache'], {}], [['--no-resident'], {}], [[], { PACKAGE_SDK_RESIDENT: 'off' }]] as const) {
      const outcome = await runCli([...args, ...extra], { cwd, env: { ...env, ...more } });
      expect([outcome.code, outcome.stderr], `${extra.join(' ')} ${JSON.stringify(more)}`).toEqual([0, '']);
    }
    expect((await statusOf(cwd, env)).running).toBe(false);
  });
});
