// What stage 2 (the rules) adds to a check of the generated 1,000-object package: each run is a fresh
// process (as the CLI is: modules load and compile cold) that times loading, stage 1 and stage 2 apart.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';

const RUNS = Number(process.env.BENCH_STAGE_RUNS ?? 7);
const self = fileURLToPath(import.meta.url);

export async function run({ root, median }) {
  const dir = generatePackage(1000, { key: 'bench-stages' });
  const samples = { load: [], stage1: [], stage2: [] };
  for (let i = 0; i <= RUNS; i++) {
    const child = spawnSync(process.execPath, [self, root, dir], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`stages: ${child.stderr}`);
    if (i === 0) continue; // warm-up of the file system cache
    const times = JSON.parse(child.stdout);
    for (const key of Object.keys(samples)) samples[key].push(times[key]);
  }
  const [load, stage1, stage2] = [median(samples.load), median(samples.stage1), median(samples.stage2)];
  return [
    { name: 'check 1,000 objects: loading (cold process)', value: load, unit: 'ms' },
    { name: 'check 1,000 objects: stage 1, schema', value: stage1, unit: 'ms' },
    { name: 'check 1,000 objects: stage 2, rules', value: stage2, unit: 'ms' },
    { name: 'stage 2 share of the check', value: (100 * stage2) / (load + stage1 + stage2), unit: '%', budget: 'adds < 20%' },
  ];
}

/** In the child: one cold check, timed stage by stage, printed as JSON. */
async function timeStages(root, dir) {
  const url = (path) => new URL(path, `file://${root}`).href;
  const at = () => Number(process.hrtime.bigint()) / 1e6;
  const t0 = at();
  const { loadTargets } = await import(url('dist/load/targets.js'));
  const workspace = await loadTargets({ packages: [dir] });
  const t1 = at();
  const { schemaFindings } = await import(url('dist/schema/findings.js'));
  for (const pkg of workspace.packages) {
    await schemaFindings(pkg.manifest, 'object');
    for (const object of pkg.objects) await schemaFindings(object.document, 'object');
  }
  const t2 = at();
  const [{ runRules }, { RULES }] = await Promise.all([import(url('dist/check/rule.js')), import(url('dist/check/rules/index.js'))]);
  runRules(workspace, RULES, new Set(), new Map());
  const t3 = at();
  process.stdout.write(JSON.stringify({ load: t1 - t0, stage1: t2 - t1, stage2: t3 - t2 }));
}

if (process.argv[1] === self) await timeStages(process.argv[2], process.argv[3]);
