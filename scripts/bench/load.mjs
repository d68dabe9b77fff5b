// The loader alone, in process (no CLI start-up): the real package of the benchmark (subject.mjs) through its
// installation, and the generated package of 1,000 objects. Medians of warm runs of the built library.
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

export async function run({ root, median, subject }) {
  const { loadTargets } = await import(new URL('dist/load/targets.js', `file://${root}`).href);
  const rows = [];
  const { cwd, file } = subject.install;
  const real = await timeLoad(median, () => loadTargets({ cwd, install: file }));
  rows.push({ name: `load ${subject.label} (in process)`, value: real, unit: 'ms' });
  const generated = generatePackage(1000, { key: 'bench-load' });
  const value = await timeLoad(median, () => loadTargets({ packages: [generated] }));
  rows.push({ name: 'load generated package, 1,000 objects (in process)', value, unit: 'ms', budget: '< 500 ms' });
  return rows;
}
