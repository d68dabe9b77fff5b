/**
 * The resident checker (src/cli/resident-server.ts) answers every check as a fresh process without the index
 * would, through its real socket, while the working directory changes under it the ways authors, editors and git
 * change it: values, references, files added, removed, renamed over, folders added and renamed, a link to a file
 * in another folder, and that file edited. Its answer after each change is compared with a check of
 * the same arguments afresh (`--no-cache`, no index).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCheckArgs, printedText, runCheckRequest } from '../../src/cli/check.js';
import type { Terminal } from '../../src/report/paint.js';
import { askResident, type ResidentMessage } from '../../src/cli/resident.js';
import { ResidentChecker } from '../../src/cli/resident-server.js';
import { residentUse } from '../../src/cli/resident-use.js';
import { FIXTURES, overlay } from '../support/overlay.js';
import { seeded } from '../support/seeded.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
const ROOT = overlay(join(FIXTURES, 'check/_bases/purchase-requests'));
const OUTSIDE = mkdtempSync(join(tmpdir(), 'package-sdk-outside-'));
const CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-resident-'));
const SOCKET = join(CACHE, 'resident', 'checker.sock');
const PACKAGE = 'packages/purchase-requests';
const at = (path: string) => join(ROOT, PACKAGE, path);
const TERMINAL = { isTTY: false, env: {} };
/** Longer than the index's racy window: stats older than this are trusted. */
const settle = () => new Promise((done) => setTimeout(done, 120));

let checker: ResidentChecker;
let saved: string | undefined;

beforeAll(async () => {
  saved = process.env.PACKAGE_SDK_CACHE;
  process.env.PACKAGE_SDK_CACHE = CACHE;
  checker = new ResidentChecker({ root: ROOT, socket: SOCKET });
  expect(await checker.listen()).toBe(true);
});

afterAll(async () => {
  await checker.close();
  if (saved === undefined) delete process.env.PACKAGE_SDK_CACHE;
  else process.env.PACKAGE_SDK_CACHE = saved;
  for (const dir of [ROOT, OUTSIDE, CACHE]) rmSync(dir, { recursive: true, force: true });
});

const ask = (message: ResidentMessage) => askResident(SOCKET, message);
const asked = (argv: string[]) => ask({ check: { argv, cwd: ROOT, terminal: TERMINAL } });

/** What a fresh process without the index prints for `argv`, and its exit status. */
async function afresh(argv: string[], terminal: Terminal = TERMINAL): Promise<{ stdout: string; exitCode: number }> {
  const request = { ...parseCheckArgs([...argv, '--no-cache'])!, cwd: ROOT, terminal };
  const outcome = await runCheckRequest(request, version);
  return { stdout: printedText(request, outcome), exitCode: outcome.exitCode };
}

const role = (key: string, description: string) => `apiVersion: taimen.ai/v1\nkind: Role\nkey: ${key}\nspec:\n  name: ${key}\n  description: ${description}\n`;

/** The changes, each as a user or a tool makes it; `n` makes each one different. */
const CHANGES: Record<string, (n: number) => void> = {
  'nothing changed': () => undefined,
  'a value edited': (n) => writeFileSync(at('roles/buyer.yaml'), readFileSync(at('roles/buyer.yaml'), 'utf8').replace(/description: .*/, `description: Edit ${n}`)),
  'a reference broken or mended': () => {
    const text = readFileSync(at('processes/purchase-request.yaml'), 'utf8');
    writeFileSync(at('processes/purchase-request.yaml'), text.includes('owner: [{role: buyer}]') ? text.replace('owner: [{role: buyer}]', 'owner: [{role: buyr}]') : text.replace('owner: [{role: buyr}]', 'owner: [{role: buyer}]'));
  },
  'a file written beside and renamed over it': (n) => {
    writeFileSync(at('roles/.buyer.yaml.swp'), role('buyer', `Renamed over ${n}`));
    renameSync(at('roles/.buyer.yaml.swp'), at('roles/buyer.yaml'));
  },
  'a role added': (n) => writeFileSync(at(`roles/added-${n % 3}.yaml`), role(`added-${n % 3}`, `Added ${n}`)),
  'a role added with a mistake': (n) => writeFileSync(at(`roles/added-${n % 3}.yaml`), role(`added-${n % 3}`, `Added ${n}`).replace('kind: Role', 'kind: Rol')),
  'an added role removed': (n) => rmSync(at(`roles/added-${n % 3}.yaml`), { force: true }),
  'a comment added': (n) => writeFileSync(at('roles/buyer.yaml'), `${readFileSync(at('roles/buyer.yaml'), 'utf8')}# comment ${n}\n`),
  'a file touched': (n) => utimesSync(at('roles/buyer.yaml'), new Date(), new Date(Date.now() - n * 1000)),
  'a folder added with a role in it': (n) => {
    mkdirSync(at(`team-${n % 2}`), { recursive: true });
    writeFileSync(at(`team-${n % 2}/lead.yaml`), role(`lead-${n % 2}`, `Leads ${n}`));
  },
  'a role in an added folder edited': (n) => {
    mkdirSync(at('team-0'), { recursive: true });
    writeFileSync(at('team-0/lead.yaml'), role('lead-0', `Edited in place ${n}`).replace('kind: Role', n % 2 ? 'kind: Role' : 'kind: Rol'));
  },
  'a folder removed and made again, with other content': (n) => {
    rmSync(at('team-0'), { recursive: true, force: true });
    mkdirSync(at('team-0'));
    writeFileSync(at('team-0/lead.yaml'), role('lead-0', `Made again ${n}`).replace('kind: Role', n % 2 ? 'kind: Role' : 'kind: Rol'));
  },
  'a folder renamed': () => {
    const [from, to] = existsSync(at('team-1')) ? ['team-1', 'team-9'] : ['team-9', 'team-1'];
    if (existsSync(at(from))) renameSync(at(from), at(to));
  },
  // A link may point at a regular file of the package; its target here is no object file itself (not .yaml).
  'a link made or removed': (n) => {
    rmSync(at('roles/linked.yaml'), { force: true });
    if (n % 2 === 0) return;
    mkdirSync(at('aliased'), { recursive: true });
    writeFileSync(at('aliased/target.txt'), role('linked', `Linked ${n}`));
    symlinkSync('../aliased/target.txt', at('roles/linked.yaml'));
  },
  'the file a link points at edited': (n) => writeFileSync(at('aliased/target.txt'), role('linked', `Pointed at ${n}`).replace('kind: Role', n % 2 ? 'kind: Role' : 'kind: Rol')),
};

describe('how a check uses the resident checker', () => {
  it('asks and starts one with --resident, asks one that runs by default, neither with --no-resident or PACKAGE_SDK_RESIDENT=off', () => {
    const cases: [string[], NodeJS.ProcessEnv][] = [[[], {}], [['--resident'], {}], [['--no-resident'], {}], [[], { PACKAGE_SDK_RESIDENT: 'off' }], [['--resident'], { PACKAGE_SDK_RESIDENT: 'off' }], [['--resident', '--no-resident'], {}]];
    expect(cases.map(([argv, env]) => residentUse(argv, env))).toEqual(['auto', 'always', 'never', 'never', 'always', 'never']);
  });
});

describe('the resident checker of a build made anew', () => {
  it('leaves the check to the client and ends, so that the next starts a checker of the new build', async () => {
    const socket = join(CACHE, 'resident', 'rebuilt.sock');
    let build = 'the build it started with';
    const rebuilt = new ResidentChecker({ root: ROOT, socket, build: () => build });
    expect(await rebuilt.listen()).toBe(true);
    const argv = ['--package', PACKAGE];
    expect(await askResident(socket, { check: { argv, cwd: ROOT, terminal: TERMINAL } })).toEqual(await afresh(argv));
    build = 'a build made since';
    expect(await askResident(socket, { check: { argv, cwd: ROOT, terminal: TERMINAL } })).toEqual({ fallback: true });
    await rebuilt.ended;
    expect(existsSync(socket), 'its socket is gone').toBe(false);
    expect(await askResident(socket, { status: true }), 'nobody listens').toBeUndefined();
  });
});

describe('the resident checker', () => {
  it('answers as a fresh check does, through its socket, after each of a long sequence of changes', async () => {
    const next = seeded(21); // a failing sequence of edits is replayed as it ran
    const names = Object.keys(CHANGES);
    const argvs = [['--package', PACKAGE], [join(PACKAGE, 'processes/purchase-request.yaml')], ['--package', PACKAGE, '--json']];
    expect(await asked(argvs[0]!), 'before any change').toEqual(await afresh(argvs[0]!));
    for (let n = 0; n < 60; n++) {
      if (n % 4 === 0) await settle(); // past the index's racy window now and then: stats it trusts, held by the checker
      const name = names[Math.floor(next() * names.length)]!;
      CHANGES[name]!(n);
      const argv = argvs[n % argvs.length]!;
      expect(await asked(argv), `after change ${n}: ${name} (${argv.join(' ')})`).toEqual(await afresh(argv));
    }
    const { status } = (await ask({ status: true })) as { status: { requests: number; knownStats: number } };
    expect(status.requests).toBe(61);
    expect(status.knownStats, 'it held stats between the checks').toBeGreaterThan(10);
  });

  it('sees an edit of a file through a link to it, though no event names the link', async () => {
    const argv = ['--package', PACKAGE];
    CHANGES['a link made or removed']!(1);
    await settle(); // so that the index trusts the link's stat, as it would a minute later
    for (let i = 0; i < 3; i++) expect(await asked(argv)).toEqual(await afresh(argv)); // its folder followed, its stats taken
    CHANGES['the file a link points at edited']!(2); // a mistake: kind Rol
    const fresh = await afresh(argv);
    expect(fresh.stdout).toContain('roles/linked.yaml');
    expect(await asked(argv)).toEqual(fresh);
  });

  it('sees the files of a folder removed and made again, which no event of the old folder names', async () => {
    const argv = ['--package', PACKAGE];
    CHANGES['a folder removed and made again, with other content']!(1);
    await settle();
    for (let i = 0; i < 3; i++) expect(await asked(argv)).toEqual(await afresh(argv));
    CHANGES['a folder removed and made again, with other content']!(2); // a mistake: kind Rol
    const fresh = await afresh(argv);
    expect(fresh.stdout).toContain('team-0/lead.yaml');
    expect(await asked(argv)).toEqual(fresh);
  });

  it('prints a report it reuses (nothing changed) with the code frames of a fresh check', async () => {
    const process = at('processes/purchase-request.yaml');
    writeFileSync(process, readFileSync(process, 'utf8').replace('owner: [{role: buyer}]', 'owner: [{role: buyr}]'));
    const argv = ['--package', PACKAGE];
    const fresh = await afresh(argv);
    expect(fresh.stdout).toContain('> 7 |   owner: [{role: buyr}]');
    await settle(); // every input's stat trusted: the report stands as stored
    expect(await asked(argv), 'checked').toEqual(fresh);
    expect(await asked(argv), 'reused').toEqual(fresh);
  });

  it('leaves to the client what needs the full command, or another working directory', async () => {
    expect(await asked(['--help'])).toEqual({ fallback: true });
    expect(await asked(['--server', 'local'])).toEqual({ fallback: true });
    expect(await ask({ check: { argv: [], cwd: OUTSIDE, terminal: TERMINAL } })).toEqual({ fallback: true });
  });

  it("paints the report for the client's terminal", async () => {
    CHANGES['a reference broken or mended']!(0);
    const argv = ['--package', PACKAGE];
    const painted = (await ask({ check: { argv, cwd: ROOT, terminal: { isTTY: true, env: { TERM: 'xterm' } } } })) as { stdout: string };
    const plain = (await asked(argv)) as { stdout: string };
    expect(painted.stdout).toContain('\u001b[');
    expect(plain.stdout).not.toContain('\u001b[');
    expect(painted.stdout.replace(/\u001b\[\d+m/g, '')).toBe(plain.stdout);
    const github = [...argv, '--format', 'github'];
    const forced = { isTTY: false, env: { FORCE_COLOR: '1' } };
    const fresh = await afresh(github, forced);
    expect(fresh.stdout, 'the summary line painted, as FORCE_COLOR asks').toContain('\u001b[');
    expect(await ask({ check: { argv: github, cwd: ROOT, terminal: forced } })).toEqual(fresh);
  });
});
