/**
 * The workspace index never changes what `check` reports: every fixture case gives the same report cold
 * (--no-cache), on a first run that fills the index, and on a run that reuses it; and after random edits of
 * a package (a value changed, a reference broken or mended, a file added, removed or touched, the manifest's
 * locales, comments, suppressions, a value written otherwise), the indexed run reports what a cold run does;
 * an edit of comments alone keeps the stored report, and one that moves, silences or rewrites what a finding
 * points at does not.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportKey, runCheckRequest, type CheckRequest } from '../../src/cli/check.js';
import { activeParseCache, ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { parseSource } from '../../src/load/source.js';
import type { ObjectRuns } from '../../src/check/rule-memo.js';
import { caseLayers, FIXTURES, layOver, overlay, overlayCase } from '../support/overlay.js';

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
  return (await checked(cwd, cache)).report;
}

/** The report of `check --json` in `cwd`, as printed, and how many runs of object rules it took from the last check. */
async function checked(cwd: string, cache: boolean): Promise<{ report: string; objectRuns: ObjectRuns | undefined }> {
  if (!cache) useParseCache(undefined);
  const outcome = await runCheckRequest(requestFor(cwd, cache), '0.0.0');
  useParseCache(undefined);
  return { report: JSON.stringify(outcome.result), objectRuns: outcome.objectRuns };
}

function reusable(cwd: string): boolean {
  return new ParseCache(join(CACHE, 'check'), cwd).reusableReport(reportKey(requestFor(cwd, true)), parseSource) !== undefined;
}

describe('check with the workspace index', () => {
  const laidOut: string[] = [];
  /** A copy of the fixture base `name`, removed after the tests. */
  const laidOutBase = (name: string): string => {
    const dir = overlay(join(FIXTURES, 'check/_bases', name));
    laidOut.push(dir);
    return dir;
  };
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

  it('reports every fixture case alike cold and checked as an edit of its base, taking the runs of object rules the edit leaves standing', async () => {
    const cases = caseDirs().map((source) => ({ source, ...caseLayers(source) }));
    const dirs = cases.map(({ base }) => overlay(base));
    laidOut.push(...dirs);
    await settle();
    for (const dir of dirs) await reportOf(dir, true);
    cases.forEach(({ files }, i) => layOver(dirs[i]!, files));
    await settle();
    const runs = { taken: 0, total: 0 };
    for (const [i, { source }] of cases.entries()) {
      const { report, objectRuns } = await checked(dirs[i]!, true);
      expect(report, source).toBe(await reportOf(dirs[i]!, false));
      runs.taken += objectRuns?.taken ?? 0;
      runs.total += objectRuns?.total ?? 0;
    }
    // A case changes a file or two of a small base: many runs stand, and the reports above are those of cold runs.
    expect(runs.taken).toBeGreaterThan(runs.total / 4);
  }, 600_000); // some 400 cases, three checks each

  it('checks an unchanged object again when what it looked up changes: a name it resolved, the names of a kind, what a found object says', async () => {
    const dir = laidOutBase('procdemo-with-process');
    const pkg = join(dir, 'packages/procdemo');
    const edit = (file: string, change: (text: string) => string) => writeFileSync(join(pkg, file), change(readFileSync(join(pkg, file), 'utf8')));
    // Each edit leaves the process alone and changes what its findings say.
    const edits: [string, () => void, string][] = [
      ['the task type it names is renamed', () => edit('task-types/go-no-go.yaml', (text) => text.replace('key: go-no-go', 'key: go-no-go-2')), 'unknown_task_type'],
      ['the task type is named back', () => edit('task-types/go-no-go.yaml', (text) => text.replace('key: go-no-go-2', 'key: go-no-go')), ''],
      ['its calendar is renamed (a near name is suggested)', () => edit('calendars/office.yaml', (text) => text.replace('key: office', 'key: offices')), 'offices'],
      ['the calendar is renamed again (another near name)', () => edit('calendars/office.yaml', (text) => text.replace('key: offices', 'key: offise')), 'offise'],
      ['the calendar is named back, and the task type types its result', () => {
        edit('calendars/office.yaml', (text) => text.replace('key: offise', 'key: office'));
        edit('task-types/go-no-go.yaml', (text) => `${text}  fieldSchema:\n    type: object\n    properties:\n      decision: {type: number}\n`);
      }, 'data_type_mismatch'],
    ];
    await settle();
    let before = await reportOf(dir, true);
    for (const [name, change, said] of edits) {
      change();
      await settle();
      const { report, objectRuns } = await checked(dir, true);
      expect(report, name).toBe(await reportOf(dir, false));
      expect(report, name).not.toBe(before);
      expect(report, name).toContain(said);
      expect(objectRuns?.taken, name).toBeGreaterThan(0);
      before = report;
    }
  });

  it('finds which runs stand from the memo alone while no object came or went, and asks object by object once one did', async () => {
    const dir = laidOutBase('purchase-requests');
    const roles = join(dir, 'packages/purchase-requests/roles');
    const rename = (from: string, to: string) => writeFileSync(join(roles, 'buyer.yaml'), readFileSync(join(roles, 'buyer.yaml'), 'utf8').replace(`name: ${from}`, `name: ${to}`));
    await settle();
    const memos = () => readdirSync(join(CACHE, 'check')).filter((file) => file.includes('.memo.'));
    const others = new Set(memos());
    await reportOf(dir, true);
    const memoName = memos().find((file) => !others.has(file))!;
    // The memo file of this workspace (the one the first check wrote): one that holds what it held is not written again.
    const memoFile = () => {
      const info = statSync(join(CACHE, 'check', memoName));
      return `${info.ino}:${info.mtimeMs}`;
    };
    const steps: [string, () => void, (runs: ObjectRuns) => void, boolean][] = [
      ['a value edited', () => rename('Buyer', 'Buyers'), (runs) => expect(runs.asked).toBe(0), true],
      ['a role added', () => writeFileSync(join(roles, 'auditor.yaml'), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: auditor\nspec: {name: Auditor}\n'), (runs) => expect(runs.asked).toBeGreaterThan(0), false],
      ['a value edited again', () => rename('Buyers', 'Buyer'), (runs) => expect(runs.asked).toBe(0), true],
    ];
    for (const [name, change, expectRuns, memoKept] of steps) {
      const memoBefore = memoFile();
      change();
      await settle();
      const { report, objectRuns } = await checked(dir, true);
      expect(report, name).toBe(await reportOf(dir, false));
      expect(objectRuns?.taken, name).toBeGreaterThan(0);
      expectRuns(objectRuns!);
      expect(memoFile() === memoBefore, `${name}: the memo kept as stored`).toBe(memoKept);
    }
  });

  it('keeps the memo of a run made again that asks and finds otherwise, though no object came or went', async () => {
    const dir = laidOutBase('purchase-requests');
    const pkg = join(dir, 'packages/purchase-requests');
    const process = join(pkg, 'processes/purchase-request.yaml');
    await settle();
    await reportOf(dir, true);
    // The process names a role that is not declared: its runs look up another name, and find it missing.
    writeFileSync(process, readFileSync(process, 'utf8').replaceAll('{role: buyer}', '{role: buyr}'));
    await settle();
    const misspelt = await reportOf(dir, true);
    expect(misspelt).toBe(await reportOf(dir, false));
    expect(misspelt).toContain('role_not_declared');
    // A role added: the process is unchanged, and its runs stand only if the memo holds what they asked last.
    writeFileSync(join(pkg, 'roles/auditor.yaml'), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: auditor\nspec: {name: Auditor}\n');
    await settle();
    const added = await reportOf(dir, true);
    expect(added).toBe(await reportOf(dir, false));
    expect(added).toContain('role_not_declared');
  });

  it('opens, of the documents it takes from the index, only those the rules it runs again read', async () => {
    const dir = laidOutBase('purchase-requests');
    const pkg = join(dir, 'packages/purchase-requests');
    await settle();
    await reportOf(dir, true);
    writeFileSync(join(pkg, 'roles/buyer.yaml'), readFileSync(join(pkg, 'roles/buyer.yaml'), 'utf8').replace('name: Buyer', 'name: Buyers'));
    await settle();
    const outcome = await runCheckRequest(requestFor(dir, true), '0.0.0');
    const unpacked = activeParseCache()?.unpacked();
    useParseCache(undefined);
    expect(JSON.stringify(outcome.result)).toBe(await reportOf(dir, false));
    // Read again: the manifest and the dictionaries (the ground of every rule), the process that looks the role
    // up, the screens and the skill a view's action names (graph rules read every view and component). Not
    // opened: the agent, whose runs stand; the role itself is parsed anew; nor the text of any other object,
    // which the variable and knowledge rules ask only whether it holds `${` or a knowledge section.
    expect(unpacked).toEqual([
      'packages/purchase-requests/package.yaml',
      'packages/purchase-requests/processes/purchase-request.yaml',
      'packages/purchase-requests/i18n/en.yaml',
      'packages/purchase-requests/i18n/ru.yaml',
      'packages/purchase-requests/components/request-summary.yaml',
      'packages/purchase-requests/views/purchase-request-card.yaml',
      'packages/purchase-requests/skills/purchase.reorder.yaml',
      'packages/purchase-requests/views/purchase-request-list.yaml',
    ]);
  });

  it('checks every object again when a document that is not an object changes: a default of the manifest', async () => {
    const dir = overlayCase(join(FIXTURES, 'check/core_check_skipped/valid/a-variable-with-a-default'));
    laidOut.push(dir);
    const manifest = join(dir, 'packages/shop/package.yaml');
    await settle();
    const before = await reportOf(dir, true);
    // The work rule is unchanged; without its variable's default the core skips its checks.
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/\n *default: order-watcher/, ''));
    await settle();
    const { report, objectRuns } = await checked(dir, true);
    expect(report).toBe(await reportOf(dir, false));
    expect(report).not.toBe(before);
    expect(report).toContain('core_check_skipped');
    expect(objectRuns?.taken).toBe(0);
  });

  it('reports what a cold run does after each of a series of random edits', async () => {
    const dir = laidOutBase('purchase-requests');
    const manifest = join(dir, 'packages/purchase-requests/package.yaml');
    const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.yaml')).map((e) => join(e.parentPath, e.name));
    const random = seeded(21);
    const edits: ((file: string) => void)[] = [
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/displayName: (.*)/, (_, name: string) => `displayName: ${name} ${random(1000)}`)),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/(taskType|role|key): ([a-z-]+)/, '$1: $2-missing')),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/^spec:/m, 'spec:\n  unknownField: 1')),
      (file) => writeFileSync(join(file, `../extra-${random(1000)}.yaml`), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: extra-role\nspec: {name: Extra}\n'),
      (file) => utimesSync(file, new Date(), new Date()),
      (file) => rmSync(file),
      // Edits a naive dependency set gets wrong: a reference mended, the manifest's locales, comments alone
      // (past the last node, or moving the nodes below), a suppression, a value written otherwise.
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace('-missing', '')),
      () => existsSync(manifest) && writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/locales: \[en, ru\]|locales: \[en\]/, (list) => (list.includes('ru') ? 'locales: [en]' : 'locales: [en, ru]'))),
      (file) => writeFileSync(file, `${readFileSync(file, 'utf8')}# note ${random(1000)}\n`),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace('\n', '\n# note\n')),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/^( *)(- )?(\w+: )/m, '$1# package-sdk-disable-next-line role_not_declared\n$&')),
      (file) => writeFileSync(file, readFileSync(file, 'utf8').replace(/: ([a-z][\w-]*)$/m, ": '$1'")),
    ];
    await settle();
    await reportOf(dir, true);
    for (let step = 0; step < 48; step++) {
      const candidates = files();
      const file = candidates[random(candidates.length)]!;
      edits[random(edits.length)]!(file);
      if (step % 2 === 0) await settle(); // half the edits land within the racy window, half outside it
      const warm = await reportOf(dir, true);
      expect(warm, `after edit ${step + 1}`).toBe(await reportOf(dir, false));
    }
  });

  it('keeps the stored report through an edit of comments alone, and checks again when an edit moves, silences or rewrites what a finding points at', async () => {
    const dir = laidOutBase('purchase-requests');
    const pkg = join(dir, 'packages/purchase-requests');
    const process = join(pkg, 'processes/purchase-request.yaml');
    const edit = (change: (text: string) => string) => writeFileSync(process, change(readFileSync(process, 'utf8')));
    writeFileSync(join(pkg, 'package.yaml'), `${readFileSync(join(pkg, 'package.yaml'), 'utf8')}  variables: {OTHER: {kind: string, description: Another}}\n`);
    // Findings at a node (a misspelt role) and at characters inside a string (a variable after escapes).
    edit((text) => text.replace('[{role: buyer}]\n          output', '[{role: buyr}]\n          output').replace('displayName: Purchase request', 'displayName: "\\x2F${NOPE}//"'));
    await settle();
    const first = await reportOf(dir, true);
    type Placed = { code: string; line: number; column: number; endColumn: number };
    const places = (report: string) => {
      const { errors, warnings } = JSON.parse(report) as { errors: Placed[]; warnings: Placed[] };
      return [...errors, ...warnings].map((f) => `${f.code}@${f.line}:${f.column}-${f.endColumn}`);
    };
    expect(places(first)).toEqual(expect.arrayContaining(['role_not_declared@29:29-33', 'variable_undeclared@6:21-28']));

    edit((text) => `${text}# reviewed\n\n`);
    await settle();
    expect(reusable(dir), 'comments past the last node').toBe(true);
    expect(await reportOf(dir, true)).toBe(first);
    expect(await reportOf(dir, false)).toBe(first);

    const changes: [string, (text: string) => string, string[]][] = [
      ['a comment that moves the nodes below it', (text) => text.replace('spec:\n', 'spec:\n  # moved\n'), ['role_not_declared@30:29-33', 'variable_undeclared@7:21-28']],
      ['the same string with other escapes', (text) => text.replace('"\\x2F${NOPE}//"', '"\\/${NOPE}\\/\\/"'), ['role_not_declared@30:29-33', 'variable_undeclared@7:19-26']],
      ['a suppression of the finding', (text) => text.replace(/^( *)assign: \[\{role: buyr/m, '$1# package-sdk-disable-next-line role_not_declared\n$&'), ['variable_undeclared@7:19-26']],
    ];
    for (const [name, change, expected] of changes) {
      edit(change);
      await settle();
      expect(reusable(dir), name).toBe(false);
      const warm = await reportOf(dir, true);
      expect(warm, name).toBe(await reportOf(dir, false));
      expect(places(warm), name).toEqual(expect.arrayContaining(expected));
      expect(places(warm).filter((place) => /^(role_not_declared|variable_undeclared)@/.test(place)), name).toHaveLength(expected.length);
    }
  });

  it('never lets a file that stopped parsing be matched against what it held before', async () => {
    const dir = laidOutBase('purchase-requests');
    const role = join(dir, 'packages/purchase-requests/roles/buyer.yaml');
    const before = readFileSync(role, 'utf8');
    await settle();
    const first = await reportOf(dir, true);
    writeFileSync(role, `${before}spec: [unclosed\n`);
    await settle();
    expect(await reportOf(dir, true)).toContain('invalid_yaml');
    // The same document as before, a comment added: the report of the broken file must not stand for it.
    writeFileSync(role, `${before}# mended\n`);
    await settle();
    expect(reusable(dir)).toBe(false);
    expect(await reportOf(dir, true)).toBe(first);
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
