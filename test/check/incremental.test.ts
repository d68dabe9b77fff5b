/**
 * The workspace index never changes what `check` reports: every fixture case gives the same report cold
 * (--no-cache), on a first run that fills the index, and on a run that reuses it; and after random edits of
 * a package (a value changed, a reference broken, a file added, a file removed, a file touched), the indexed
 * run reports what a cold run does.
 */
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportKey, runCheckRequest, type CheckRequest } from '../../src/cli/check.js';
import { ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { parseSource } from '../../src/load/source.js';
import { FIXTURES, overlay, overlayCase } from '../support/overlay.js';

const CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-index-'));
/** Longer than the index's racy window: stats older than this are trusted. */
const SETTLE_MS = 120;

const settle = () => new Promise((done) => setTimeout(done, SETTLE_MS));

function caseDirs(): string[] {
  const root = join(FIXTURES, 'check');
  const dirs: string[] = [];
  for (const code of readdirSync(root).filter((name) => !name.startsWith('_') && statSync(join(root, name)).isDirectory())) {
    for (const kind of ['valid', 'invalid']) {
      const parent = join(root, code, kind);
      const cases = (() => {
        try {
          return readdirSync(parent);
        } catch {
          return [];
        }
      })();
      dirs.push(...cases.map((name) => join(parent, name)));
    }
  }
  return dirs;
}

function requestFor(cwd: string, cache: boolean): CheckRequest {
  const install = readdirSync(cwd).includes('packages.yaml') ? { install: 'packages.yaml' } : {};
  return { cwd, ...install, paths: [], format: 'json', json: true, listRules: false, cache };
}

/** The report of `check --json` in `cwd`, as printed. */
async function reportOf(cwd: string, cache: boolean): Promise<string> {
  if (!cache) useParseCache(undefined);
  const outcome = await runCheckRequest(requestFor(cwd, cache), '0.0.0');
  useParseCache(undefined);
  return JSON.stringify(outcome.result);
}

function reusable(cwd: string): boolean {
  const key = reportKey(requestFor(cwd, true));
  return key !== undefined && new ParseCache(join(CACHE, 'check'), cwd).reusableReport(key, parseSource) !== undefined;
}

describe('check with the workspace index', () => {
  const laidOut: string[] = [];
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.PACKAGE_SDK_CACHE;
    process.env.PACKAGE_SDK_CACHE = CACHE;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.PACKAGE_SDK_CACHE;
    else process.env.PACKAGE_SDK_CACHE = saved;
    for (const dir of [...laidOut, CACHE]) rmSync(dir, { recursive: true, force: true });
  });

  it('reports every fixture case alike cold, on the run that fills the index, and from the index', async () => {
    const cases = caseDirs().map((dir) => [dir, overlayCase(dir)] as const);
    laidOut.push(...cases.map(([, dir]) => dir));
    expect(cases.length).toBeGreaterThan(100);
    await settle();
    let reused = 0;
    for (const [source, dir] of cases) {
      const cold = await reportOf(dir, false);
      expect(await reportOf(dir, true), `${source}: first run`).toBe(cold);
      if (reusable(dir)) reused++;
      expect(await reportOf(dir, true), `${source}: from the index`).toBe(cold);
    }
    // Installations are checked afresh (their git sources are not watched); every other case is reused whole.
    expect(reused).toBeGreaterThan(cases.length / 2);
  }, 600_000); // some 400 cases, three checks each

  it('reports what a cold run does after each of a series of random edits', async () => {
    const dir = overlay(join(FIXTURES, 'check/_bases/purchase-requests'));
    laidOut.push(dir);
    const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.yaml')).map((e) => join(e.parentPath, e.name));
    const random = seeded(21);
    const edits: ((file: string) => void)[] = [
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/displayName: (.*)/, (_, name: string) => `displayName: ${name} ${random(1000)}`)),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/(taskType|role|key): ([a-z-]+)/, '$1: $2-missing')),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/^spec:/m, 'spec:\n  unknownField: 1')),
      (file) => writeFileSync(join(file, `../extra-${random(1000)}.yaml`), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: extra-role\nspec: {name: Extra}\n'),
      (file) => utimesSync(file, new Date(), new Date()),
      (file) => rmSync(file),
    ];
    await settle();
    await reportOf(dir, true);
    for (let step = 0; step < 24; step++) {
      const candidates = files();
      const file = candidates[random(candidates.length)]!;
      edits[random(edits.length)]!(file);
      if (step % 2 === 0) await settle(); // half the edits land within the racy window, half outside it
      const warm = await reportOf(dir, true);
      expect(warm, `after edit ${step + 1}`).toBe(await reportOf(dir, false));
    }
  });
});

describe('check of files inside a package (a pre-commit hook passing the staged files)', () => {
  const dir = overlay(join(FIXTURES, 'check/_bases/purchase-requests'));
  const pkg = join(dir, 'packages/purchase-requests');
  const process = join(pkg, 'processes/purchase-request.yaml');
  const role = join(pkg, 'roles/buyer.yaml');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks the files given against their package graph, and reports only their findings', async () => {
    writeFileSync(process, readFileSync(process, 'utf8').replaceAll('{role: buyer}', '{role: buyr}'));
    writeFileSync(role, readFileSync(role, 'utf8').replace(/^spec:/m, 'spec:\n  unknownField: 1'));
    const whole = await runCheckRequest({ cwd: dir, packages: ['packages/purchase-requests'], paths: [], format: 'json', json: true, listRules: false, cache: false }, '0.0.0');
    const staged = await runCheckRequest({ cwd: dir, paths: ['packages/purchase-requests/processes/purchase-request.yaml'], format: 'json', json: true, listRules: false, cache: false }, '0.0.0');
    type Listed = { file: string; code: string };
    const findings = (outcome: typeof whole) => {
      const report = outcome.result as { errors: Listed[]; warnings: Listed[] };
      return [...report.errors, ...report.warnings];
    };
    const ofProcess = findings(whole).filter((f) => f.file.endsWith('processes/purchase-request.yaml'));
    expect(ofProcess.map((f) => f.code), 'the misspelt role is a reference finding of the process').toContain('role_not_declared');
    expect(findings(whole).some((f) => f.file.endsWith('roles/buyer.yaml'))).toBe(true);
    expect(findings(staged)).toEqual(ofProcess);
    expect([whole.exitCode, staged.exitCode], 'the unknown field of the role fails the package, not the staged process').toEqual([1, 0]);
  });
});

/** A small deterministic generator: the edits are random, and the same on every run. */
function seeded(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % below;
  };
}
