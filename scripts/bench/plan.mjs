// plan and apply of a generated installation (500 objects: task types, roles, work rules, processes) against
// the local core over loopback HTTP, through the built library: wall time and requests of a first plan, of its
// apply, and of the plan after it (no changes). The core's data directory is a fresh temp directory.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';

const OBJECTS = 500;

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

/** Median of `runs` CPU times of a process. */
async function medianCpu(args, options, runs) {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await processCpu(args, options));
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

/**
 * `plan` of the real package (the claims example, or fixtures/example) as a CD pipeline runs it: the built CLI
 * against a local core in this process, CPU of the CLI process only, as a ratio to `node -e 0`; the first plan
 * on an empty core, then the plan after apply (nothing changed), as a ratio to the first.
 */
export async function subjectRows({ root, subject }) {
  const runs = Number(process.env.BENCH_RUNS ?? 9);
  const { startCoreServer } = await import(new URL('dist/server/server.js', `file://${root.endsWith('/') ? root : `${root}/`}`).href);
  const cwd = mkdtempSync(join(tmpdir(), 'bench-plan-subject-'));
  cpSync(subject.install.cwd, cwd, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-plan-core-'));
  const workspace = '11111111-2222-4333-8444-555555555555';
  const core = await startCoreServer({ dataDir, token: 'bench', host: '127.0.0.1', port: 0, seed: { workspaces: [{ id: workspace }] } });
  const env = {
    CP_TOKEN: 'bench', NOTIFICATION_SERVICE_URL: core.url, NOTIFY_TOKEN: 'bench', PACKAGE_SDK_CACHE: join(cwd, '.cache'),
    CLAIMS_WORKSPACE_ID: workspace, MAINTENANCE_WORKSPACE_ID: workspace, HELPDESK_URL: 'http://helpdesk:8080',
    FLEET_API_URL: 'https://fleet.example.com/api/v2', STORES_API_URL: 'https://stores.example.com/api',
  };
  const cli = join(root, 'bin/run.js');
  const planArgs = [cli, 'plan', '--install', subject.install.file, '--server', core.url, '--out', 'plan.json'];
  try {
    const baseline = await medianCpu(['-e', '0'], { cwd, env }, runs);
    const first = await medianCpu(planArgs, { cwd, env }, runs);
    await processCpu([cli, 'apply', '--plan', 'plan.json', '--auto-approve'], { cwd, env });
    const again = await medianCpu(planArgs, { cwd, env }, runs);
    return [
      { name: 'node -e 0, CPU', value: baseline, unit: 'ms' },
      { name: `plan ${subject.label}, first plan, CPU of the CLI`, value: first, unit: 'ms', ratio: first / baseline, budget: '<= 7x baseline CPU' },
      { name: `plan ${subject.label}, nothing changed, CPU of the CLI (${(again / first).toFixed(2)}x the first)`, value: again, unit: 'ms', ratio: again / baseline, budget: '<= 0.3x the first plan' },
    ];
  } finally {
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)), subject } = {}) {
  const rows = subject ? await subjectRows({ root, subject }) : [];
  const dist = (path) => new URL(`dist/${path}`, `file://${root.endsWith('/') ? root : `${root}/`}`).href;
  const [{ plan }, { apply }, { startCoreServer }] = await Promise.all([
    import(dist('plan/plan.js')), import(dist('plan/apply.js')), import(dist('server/server.js'))]);
  const packageDir = generatePackage(OBJECTS, { key: 'bench-plan' });
  const install = join(dirname(packageDir), 'packages.yaml');
  writeFileSync(install, 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: bench-plan\nspec:\n  packages: [{key: bench-plan, path: ./bench-plan}]\n');
  const out = join(dirname(packageDir), 'plan.json');
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
    rmSync(dirname(packageDir), { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { benchSubject } = await import('./subject.mjs');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  for (const row of await run({ root, subject: benchSubject(root) })) console.log(`${row.name}: ${Math.round(row.value).toLocaleString("en-US")} ${row.unit}${row.ratio ? ` (${row.ratio.toFixed(2)}x)` : ""}`);
}
