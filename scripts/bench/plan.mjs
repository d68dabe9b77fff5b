// plan and apply against a local core over loopback HTTP (its data directory a fresh temp directory): CPU of the
// built CLI's process planning the real package and a generated installation (500 objects: task types, roles,
// work rules, processes) first and when nothing changed, beside the floor of any plan process; then, through the
// built library, wall time and requests of a first plan of the generated installation, of its apply, and of the
// plan after it (no changes).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';

const OBJECTS = Number(process.env.BENCH_PLAN_OBJECTS ?? 500);

/** CPU time (user + system, ms) of a whole process, read by a preload at its exit; async, since the core answers in this process. */
async function processCpu(args, { cwd, env }) {
  const preload = join(mkdtempSync(join(tmpdir(), 'bench-cpu-')), 'cpu.cjs');
  writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(process.env.BENCH_CPU_OUT, String((u.user + u.system) / 1000)); });\n");
  const outFile = `${preload}.out`;
  const code = await new Promise((resolve) => spawn(process.execPath, ['-r', preload, ...args], { cwd, env: { ...process.env, ...env, BENCH_CPU_OUT: outFile }, stdio: 'ignore' }).on('close', resolve));
  if (code !== 0 && code !== 2) throw new Error(`${args.join(' ')} exited ${code}`);
  const ms = Number(readFileSync(outFile, 'utf8'));
  rmSync(dirname(preload), { recursive: true, force: true });
  return ms;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];

/** Median and spread (25th–75th percentile) of samples. */
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), spread: [quantile(sorted, 0.25), quantile(sorted, 0.75)] };
}

/** CPU times of `runs` runs of a process. */
async function cpuRuns(args, options, runs) {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await processCpu(args, options));
  return summary(samples);
}

/** A local core in this process on a fresh data directory (seeded with `workspaces`), and how to stop it. */
async function startCore(root, workspaces = []) {
  const { startCoreServer } = await import(new URL('dist/server/server.js', `file://${root.endsWith('/') ? root : `${root}/`}`).href);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-plan-core-'));
  const core = await startCoreServer({ dataDir, token: 'bench', host: '127.0.0.1', port: 0, seed: { workspaces: workspaces.map((id) => ({ id })) } });
  return { url: core.url, stop: async () => { await core.stop(); rmSync(dataDir, { recursive: true, force: true }); } };
}

/**
 * The CPU of the CLI's first plan of an installation (an empty index, an empty core) and of its plan when
 * nothing changed (the index warm, the installation applied — on a second core), run in turns so that both
 * see the same load of the machine: median and spread of each, and of their ratio pair by pair.
 */
async function firstAndAgain({ root, install, cwd, env, runs, workspaces }) {
  const cli = join(root, 'bin/run.js');
  const [empty, applied] = [await startCore(root, workspaces), await startCore(root, workspaces)];
  const plan = (core, out, cache = env.PACKAGE_SDK_CACHE) => processCpu([cli, 'plan', '--install', install, '--server', core.url, '--out', out],
    { cwd, env: { ...env, NOTIFICATION_SERVICE_URL: core.url, PACKAGE_SDK_CACHE: cache } });
  try {
    await plan(applied, 'plan.json');
    await processCpu([cli, 'apply', '--plan', 'plan.json', '--auto-approve'], { cwd, env: { ...env, NOTIFICATION_SERVICE_URL: applied.url } });
    await plan(applied, 'plan.json'); // the plan that stores the check's verdict
    const [first, again] = [[], []];
    for (let i = 0; i < runs; i++) {
      const cache = mkdtempSync(join(tmpdir(), 'bench-plan-cache-'));
      first.push(await plan(empty, 'first-plan.json', cache));
      rmSync(cache, { recursive: true, force: true });
      again.push(await plan(applied, 'plan.json'));
    }
    return { first: summary(first), again: summary(again), ratio: summary(again.map((ms, i) => ms / first[i])) };
  } finally {
    await empty.stop();
    await applied.stop();
  }
}

/**
 * The least a `plan` process can cost, whatever it reuses: node started, the plan bundle loaded (as bin/run.js
 * loads it, from V8's code cache), and one request to the core answered — a script doing only that.
 */
function floorScript(root, url) {
  const script = join(mkdtempSync(join(tmpdir(), 'bench-plan-floor-')), 'floor.mjs');
  writeFileSync(script, [
    `import { get } from 'node:http';`,
    `import { loadBundle } from ${JSON.stringify(join(root, 'bin/check-bundle.js'))};`,
    `loadBundle(${JSON.stringify(root)}, 'plan');`,
    `await new Promise((done, fail) => get(${JSON.stringify(`${url}/openapi.json`)}, { headers: { authorization: 'Bearer bench' } }, (res) => res.resume().on('end', done)).on('error', fail));`,
  ].join('\n'));
  return script;
}

const spreadText = (spread, of = 1) => `[${(spread[0] / of).toFixed(2)}–${(spread[1] / of).toFixed(2)}]`;

/**
 * `plan` of the real package (the claims example, or fixtures/example) as a CD pipeline runs it: the built CLI
 * against local cores in this process, CPU of the CLI process only, as a ratio to `node -e 0`: the first plan
 * and the plan when nothing changed (see `firstAndAgain`), beside the floor of any plan process, which at this
 * size is most of the cost.
 */
export async function subjectRows({ root, subject }) {
  const runs = Number(process.env.BENCH_RUNS ?? 9);
  const cwd = mkdtempSync(join(tmpdir(), 'bench-plan-subject-'));
  cpSync(subject.install.cwd, cwd, { recursive: true });
  const workspace = '11111111-2222-4333-8444-555555555555';
  const env = {
    CP_TOKEN: 'bench', NOTIFY_TOKEN: 'bench', PACKAGE_SDK_CACHE: join(cwd, '.cache'),
    CLAIMS_WORKSPACE_ID: workspace, MAINTENANCE_WORKSPACE_ID: workspace, HELPDESK_URL: 'http://helpdesk:8080',
    FLEET_API_URL: 'https://fleet.example.com/api/v2', STORES_API_URL: 'https://stores.example.com/api',
  };
  const core = await startCore(root);
  const floor = floorScript(root, core.url);
  try {
    const baseline = (await cpuRuns(['-e', '0'], { cwd, env }, runs)).median;
    const least = await cpuRuns([floor], { cwd, env }, runs);
    const { first, again, ratio } = await firstAndAgain({ root, install: subject.install.file, cwd, env, runs, workspaces: [workspace] });
    const ofFirst = (ms) => (ms / first.median).toFixed(2);
    return [
      { name: 'node -e 0, CPU', value: baseline, unit: 'ms' },
      { name: `plan floor: node + the plan bundle + one request to the core, CPU (${ofFirst(least.median)}x a first plan of the ${subject.label})`, value: least.median, unit: 'ms', ratio: least.median / baseline },
      { name: `plan ${subject.label}, first plan (empty index, empty core), CPU of the CLI ${spreadText(first.spread, baseline)}`, value: first.median, unit: 'ms', ratio: first.median / baseline, budget: '<= 7x baseline CPU' },
      {
        name: `plan ${subject.label}, nothing changed (warm index), CPU of the CLI: ${ratio.median.toFixed(2)}x the first ${spreadText(ratio.spread)}`,
        value: again.median, unit: 'ms', ratio: again.median / baseline,
        budget: `>= the floor, ${ofFirst(least.median)}x the first plan${least.median / first.median > 0.3 ? ': 0.3x is below the floor at this size' : ''}`,
      },
    ];
  } finally {
    await core.stop();
    rmSync(dirname(floor), { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** A generated installation of `OBJECTS` objects in one package, in a fresh directory. */
function generatedInstallation() {
  const packageDir = generatePackage(OBJECTS, { key: 'bench-plan' });
  const install = join(dirname(packageDir), 'packages.yaml');
  writeFileSync(install, 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: bench-plan\nspec:\n  packages: [{key: bench-plan, path: ./bench-plan}]\n');
  return { dir: dirname(packageDir), install };
}

/**
 * `plan` at scale through the built CLI, where the work dominates the process: the generated installation
 * against local cores in this process, CPU of the CLI process only — its first plan and its plan when nothing
 * changed (see `firstAndAgain`); the goal is on their ratio, pair by pair.
 */
async function scaleRows({ root }) {
  const runs = Number(process.env.BENCH_RUNS ?? 9);
  const { dir, install } = generatedInstallation();
  try {
    const { first, again, ratio } = await firstAndAgain({ root, install, cwd: dir, env: { CP_TOKEN: 'bench', PACKAGE_SDK_CACHE: join(dir, '.cache') }, runs });
    const label = `${OBJECTS} objects`;
    return [
      { name: `plan ${label}, first plan (empty index, empty core), CPU of the CLI [${first.spread.map(Math.round).join('–')} ms]`, value: first.median, unit: 'ms' },
      {
        name: `plan ${label}, nothing changed (warm index), CPU of the CLI [${again.spread.map(Math.round).join('–')} ms]: ${ratio.median.toFixed(2)}x the first ${spreadText(ratio.spread)}`,
        value: again.median, unit: 'ms', budget: '<= 0.3x the first plan',
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)), subject } = {}) {
  const rows = [...(subject ? await subjectRows({ root, subject }) : []), ...(await scaleRows({ root }))];
  const dist = (path) => new URL(`dist/${path}`, `file://${root.endsWith('/') ? root : `${root}/`}`).href;
  const [{ plan }, { apply }, { startCoreServer }] = await Promise.all([
    import(dist('plan/plan.js')), import(dist('plan/apply.js')), import(dist('server/server.js'))]);
  const { dir, install } = generatedInstallation();
  const out = join(dir, 'plan.json');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-plan-'));
  const core = await startCoreServer({ dataDir, token: 'bench', host: '127.0.0.1', port: 0 });
  const options = { server: core.url, processEnv: { CP_TOKEN: 'bench' } };
  const timed = async (work) => {
    const start = process.hrtime.bigint();
    const result = await work();
    return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  try {
    const first = await timed(() => plan({ ...options, install, out }));
    const applied = await timed(() => apply({ ...options, plan: out, autoApprove: true }));
    const again = await timed(() => plan({ ...options, install, out }));
    const label = `${OBJECTS} objects`;
    return [
      ...rows,
      { name: `plan: first plan of ${label} (local core)`, value: first.ms, unit: 'ms' },
      { name: `plan: requests of the first plan of ${label}`, value: first.result.requests, unit: 'requests' },
      { name: `apply: ${label} (verification + writes)`, value: applied.ms, unit: 'ms' },
      { name: `apply: requests of applying ${label}`, value: applied.result.requests, unit: 'requests' },
      { name: `plan: plan after apply, no changes (${label})`, value: again.ms, unit: 'ms' },
    ];
  } finally {
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { benchSubject } = await import('./subject.mjs');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  for (const row of await run({ root, subject: benchSubject(root) })) console.log(`${row.name}: ${Math.round(row.value).toLocaleString("en-US")} ${row.unit}${row.ratio ? ` (${row.ratio.toFixed(2)}x)` : ""}`);
}
