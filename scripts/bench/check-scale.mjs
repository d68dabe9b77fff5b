// `check` as a pre-commit hook and an editor see it, side by side with `node -e 0`: each sample runs the
// baseline and the case one after the other, and the row is the median of the per-pair ratios of CPU time
// (user + system, steadier than wall on a loaded machine) with their spread (25th–75th percentile), beside
// the median wall time and peak memory. Cases: the real package warm (as a package and as its installation)
// and --no-cache, generated packages of 100, 1,000 and 10,000 objects cold (no index), warm (nothing changed),
// with one file edited (a comment) and
// as a pre-commit hook checks them (the staged file alone, with its references), with one value edited, and the
// growth exponent k of cold and warm checks from 100 to 10,000 objects (time ∝ objects^k) — all of these in a fresh
// process (PACKAGE_SDK_RESIDENT=off); then the value edit and the pre-commit check again as the working directory's
// resident checker answers them: a plain `check` from 1,000 objects (the first one starts it), `--resident` below.
//
// Run alone: `node scripts/bench/check-scale.mjs` (BENCH_SCALE_RUNS samples a row, default 5;
// BENCH_SCALE_SIZES, default 100,1000,10000; BENCH_SCALE_ONLY, a regular expression: only the rows it matches).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';
import { benchSubject } from './subject.mjs';

const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 5);
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100,1000,10000').split(',').map(Number);
const ONLY = new RegExp(process.env.BENCH_SCALE_ONLY ?? '');
const USAGE = fileURLToPath(new URL('./usage.cjs', import.meta.url));

/** One process: wall ms, CPU ms and peak RSS MiB (reported by usage.cjs, preloaded, as the process exits). */
function measure(args, cwd, env) {
  const out = join(env.PACKAGE_SDK_CACHE ?? tmpdir(), `usage-${process.pid}.json`);
  rmSync(out, { force: true });
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--require', USAGE, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env, BENCH_USAGE_FILE: out },
    maxBuffer: 1 << 30,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const usage = JSON.parse(readFileSync(out, 'utf8'));
  return { wall, cpu: usage.cpu, rss: usage.rss };
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
}

/**
 * `samples` pairs of the baseline and `args` (`before` runs ahead of each case run, untimed: an edit, say);
 * the row of their CPU ratios.
 */
async function sideBySide(name, args, { cwd, env, before = () => {}, goal, alsoCounted, pairs = RUNS } = {}) {
  if (!ONLY.test(name)) return undefined;
  const baselines = [];
  const runs = [];
  /** With `alsoCounted`, the CPU another process (a resident checker) had spent as each run started, and at the end. */
  const marks = [];
  for (let i = 0; i < pairs; i++) {
    baselines.push(measure(['-e', '0'], cwd, env));
    before(i);
    if (alsoCounted) marks.push(alsoCounted());
    runs.push(measure(args, cwd, env));
  }
  if (alsoCounted) {
    await new Promise((done) => setTimeout(done, 1000)); // what it does once idle (V8's collection) counts too
    marks.push(alsoCounted());
  }
  // Each run is charged with all the other process spent from its start to the next run's: its answer, then its idle work.
  const cpus = runs.map((run, i) => run.cpu + (alsoCounted ? marks[i + 1] - marks[i] : 0));
  const ratios = cpus.map((cpu, i) => cpu / baselines[i].cpu);
  const walls = runs.map((run) => run.wall);
  const peaks = runs.map((run) => run.rss);
  return {
    name,
    value: quantile(walls, 0.5),
    unit: 'ms',
    cpuMs: quantile(cpus, 0.5),
    ratio: quantile(ratios, 0.5),
    spread: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    peak: quantile(peaks, 0.5),
    ...(goal ? { budget: goal } : {}),
  };
}

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)), subject = benchSubject(root) } = {}) {
  const cli = join(root, 'bin/run.js');
  const cache = mkdtempSync(join(tmpdir(), 'package-sdk-scale-'));
  const rows = [];
  try {
    // A fresh process each: no resident checker is asked, nor started by the large packages' checks.
    const env = { PACKAGE_SDK_CACHE: cache, PACKAGE_SDK_RESIDENT: 'off' };
    const real = ['check', '--package', subject.package.dir];
    measure([cli, ...real], root, env); // fills the index
    rows.push(await sideBySide(`check ${subject.label}, warm index`, [cli, ...real], { cwd: root, env, goal: '≤ 2.0x CPU' }));
    // As the example's README has it: the installation, with the package it names.
    const installed = [cli, 'check', '--install', subject.install.file];
    measure(installed, subject.install.cwd, env);
    rows.push(await sideBySide(`check ${subject.label} --install, warm index`, installed, { cwd: subject.install.cwd, env, goal: '≤ 2.0x CPU' }));
    rows.push(await sideBySide(`check ${subject.label} --no-cache`, [cli, 'check', '--no-cache', '--package', subject.package.dir], { cwd: root, env, goal: '≤ 2.5x CPU' }));
    const cold = new Map();
    const warm = new Map();
    for (const size of SIZES) {
      const dir = generatePackage(size, { key: `scale-${size}` });
      const label = `${size.toLocaleString('en-US')} objects`;
      const args = [cli, 'check', '--package', dir];
      const big = size >= 10_000;
      cold.set(size, await sideBySide(`check ${label}, cold (--no-cache)`, [cli, 'check', '--no-cache', '--package', dir], { cwd: root, env, goal: big ? '≤ 25x CPU, ≤ 150 MiB' : undefined }));
      await settle();
      measure(args, root, env); // fills the index
      await settle();
      warm.set(size, await sideBySide(`check ${label}, warm (nothing changed)`, args, { cwd: root, env, goal: big ? '≤ 5x CPU' : undefined }));
      const edited = join(dir, 'roles', 'o1.yaml');
      const editValue = (i) => writeFileSync(edited, readFileSync(edited, 'utf8').replace(/description: .*/, `description: Reviews items, edit ${i}`));
      rows.push(cold.get(size), warm.get(size));
      // An edit of what a file says: what an author does between two commits. In a fresh process, as the first check,
      // --no-resident and CI run it; the goals are the resident rows' below, as a plain check runs it at this size.
      rows.push(await sideBySide(`check ${label}, one file edited (a value), fresh process`, args, { cwd: root, env, before: editValue }));
      // A pre-commit hook: the staged file given alone, checked with its references against the package.
      rows.push(await sideBySide(`check ${label}, pre-commit: the staged file (a value edited) with its references, fresh process`, [cli, 'check', edited], { cwd: root, env, before: editValue }));
      // An edit of comments alone: the stored report still stands.
      rows.push(await sideBySide(`check ${label}, one file edited (a comment)`, args, { cwd: root, env, before: (i) => appendFileSync(edited, `# edit ${i}\n`) }));
      rows.push(...(await residentRows({ root, cli, size, label, dir, edited, editValue, env: { PACKAGE_SDK_CACHE: cache }, big })));
    }
    const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
    if (large > small && [small, large].every((size) => cold.get(size) && warm.get(size))) {
      const growth = (rows) => Math.log(rows.get(large).cpuMs / rows.get(small).cpuMs) / Math.log(large / small);
      rows.push({ name: `growth exponent k, cold check ${small} → ${large} objects (CPU)`, value: growth(cold), unit: 'k', budget: '≤ 1' });
      rows.push({ name: `growth exponent k, warm check ${small} → ${large} objects (CPU)`, value: growth(warm), unit: 'k', budget: '≤ 1' });
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return rows.filter(Boolean);
}

/** Checks a resident checker answers before it is measured: V8 has optimised what stays hot by then. */
const WARM_UP_CHECKS = 20;
/**
 * Pairs a resident row takes at least: a run costs a fraction of a second, and the checker's collections fall on some
 * runs and not others (a run's CPU ranges over 3×), so five pairs leave the median to chance.
 */
const RESIDENT_PAIRS = 15;

/**
 * The value edit and the pre-commit rows again, answered by the working directory's resident checker — by a plain
 * `check` from `RESIDENT_FROM_OBJECTS` objects, whose first run starts it, by `check --resident` below: the client's CPU and all the checker spent from the run's start to the next run's — its
 * answer, then what it does once idle (all its threads, from /proc/PID/task/TID/schedstat: Linux only) — after
 * twenty checks that warm it up, as a hook's or an editor's checker is after a few minutes of work. Then the
 * checker's resident memory, and it is stopped.
 */
async function residentRows({ root, cli, size, label, dir, edited, editValue, env, big }) {
  const { RESIDENT_FROM_OBJECTS } = await import(join(root, 'dist/cli/resident-use.js'));
  const [flags, how] = size >= RESIDENT_FROM_OBJECTS ? [[], 'resident checker, a plain check'] : [['--resident'], 'resident checker, check --resident'];
  const names = [`check ${label}, one file edited (a value), ${how}`, `check ${label}, pre-commit (a value edited), ${how}`];
  if (process.platform !== 'linux' || !names.some((name) => ONLY.test(name))) return [];
  const { askResident, residentSocket } = await import(join(root, 'dist/cli/resident.js'));
  const socket = residentSocket(root, env);
  const pidOf = async () => (await askResident(socket, { status: true }))?.status?.pid;
  const edit = [cli, 'check', ...flags, '--package', dir];
  measure(edit, root, env); // starts it; this process checks
  let pid;
  for (let tries = 0; tries < 200 && pid === undefined; tries++) {
    await new Promise((done) => setTimeout(done, 50));
    pid = await pidOf();
  }
  if (pid === undefined) throw new Error('the resident checker did not start');
  for (let i = 0; i < WARM_UP_CHECKS; i++) {
    editValue(1000 + i);
    measure(edit, root, env);
  }
  const cpuOf = () => readdirSync(`/proc/${pid}/task`).reduce((sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6, 0);
  const rows = [
    await sideBySide(names[0], edit, { cwd: root, env, before: editValue, goal: big ? '≤ 5x CPU' : undefined, alsoCounted: cpuOf, pairs: Math.max(RUNS, RESIDENT_PAIRS) }),
    await sideBySide(names[1], [cli, 'check', ...flags, edited], { cwd: root, env, before: editValue, goal: big ? '≤ 3x CPU' : undefined, alsoCounted: cpuOf, pairs: Math.max(RUNS, RESIDENT_PAIRS) }),
  ];
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  rows.push({ name: `the resident checker of ${label}: resident memory after these checks`, value: rss, unit: 'MiB' });
  await askResident(socket, { stop: true });
  return rows;
}

/** Past the index's racy window, so that the stats just written are trusted. */
function settle() {
  return new Promise((done) => setTimeout(done, 120));
}

/** One line a row: median wall, CPU ratio with its spread, peak memory. */
export function formatRow(row, width) {
  if (row.unit === 'k') return `${row.name.padEnd(width)}  ${row.value.toFixed(2).padStart(9)}${row.budget ? `  (goal ${row.budget})` : ''}`;
  if (row.unit === 'MiB') return `${row.name.padEnd(width)}  ${`${row.value.toFixed(0)} MiB`.padStart(9)}`;
  const spread = row.spread ? ` [${row.spread[0].toFixed(1)}–${row.spread[1].toFixed(1)}]` : '';
  const peak = row.peak !== undefined ? `  peak ${row.peak.toFixed(0)} MiB` : '';
  const cpu = row.cpuMs !== undefined ? `  cpu ${row.cpuMs.toFixed(0)} ms` : '';
  return `${row.name.padEnd(width)}  ${`${row.value.toFixed(0)} ms`.padStart(9)}${cpu}  ${row.ratio.toFixed(2)}x CPU${spread}${peak}${row.budget ? `  (goal ${row.budget})` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await run();
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const row of rows) console.log(formatRow(row, width));
  writeFileSync(join(tmpdir(), 'package-sdk-check-scale.json'), JSON.stringify(rows, null, 2));
}
