// The loader alone, in process (no CLI start-up): the claims example through its installation, and the
// generated package of 1,000 objects. Medians of warm runs of the built library.
import { existsSync } from 'node:fs';
import { generatePackage } from './generate.mjs';

const RUNS = Number(process.env.BENCH_LOAD_RUNS ?? 15);

async function timeLoad(median, load) {
  await load(); // warm-up: module compilation and JIT are start-up, measured by the process rows
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const workspace = await load();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (workspace.findings.length > 0) throw new Error(`load found problems: ${workspace.findings[0].message}`);
  }
  return median(samples);
}

export async function run({ root, median }) {
  const { loadTargets } = await import(new URL('dist/load/targets.js', `file://${root}`).href);
  const rows = [];
  const claims = `${root}../shared/corpus/claims`;
  if (existsSync(claims)) {
    const value = await timeLoad(median, () => loadTargets({ cwd: claims, install: 'packages.yaml' }));
    rows.push({ name: 'load claims example (in process)', value, unit: 'ms' });
  }
  const generated = generatePackage(1000, { key: 'bench-load' });
  const value = await timeLoad(median, () => loadTargets({ packages: [generated] }));
  rows.push({ name: 'load generated package, 1,000 objects (in process)', value, unit: 'ms', budget: '< 500 ms' });
  return rows;
}
