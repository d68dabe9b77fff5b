// `npm run bench`: whole-process timings of the CLI (medians of several runs, as ratios to `node -e 0`),
// then the throughput pieces under scripts/bench/ (each exports `run()` → rows {name, value, unit}).
// Budgets are checked here, never in timed tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRow } from './bench/check-scale.mjs';
import { generatePackage } from './bench/generate.mjs';
import { benchSubject } from './bench/subject.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}bin/run.js`;
const runs = Number(process.env.BENCH_RUNS ?? 9);
const subject = benchSubject(root);
console.log(`real package measured: ${subject.label}, from ${subject.source}`);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Median wall time of a whole process, in milliseconds (one warm-up run first). */
function timeProcess(args, { expectStatus = [0, 1] } = {}) {
  const samples = [];
  for (let i = 0; i <= runs; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: process.env });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (!expectStatus.includes(result.status)) {
      throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr || result.stdout}`);
    }
    if (i > 0) samples.push(elapsed);
  }
  return median(samples);
}

const rows = [];
const baseline = timeProcess(['-e', '0']);
rows.push({ name: 'node -e 0 (baseline)', value: baseline, unit: 'ms' });

function processRow(name, args, budget) {
  const value = timeProcess(args);
  rows.push({ name, value, unit: 'ms', ratio: value / baseline, budget });
}

// check keeps what it learnt of unchanged files in $PACKAGE_SDK_CACHE/check: the warm rows are what a
// pre-commit hook or an editor sees (the warm-up run fills the cache), --no-cache is a first run.
process.env.PACKAGE_SDK_CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-bench-'));
processRow('package-sdk --version', [cli, '--version']);
processRow(`check ${subject.label}`, [cli, 'check', '--package', subject.package.dir], '< 2.5x baseline');
processRow(`check ${subject.label} --no-cache`, [cli, 'check', '--no-cache', '--package', subject.package.dir]);
const generated = generatePackage(1000);
processRow('check generated package, 1,000 objects', [cli, 'check', '--package', generated], '< 2000 ms');
processRow('check generated package, 1,000 objects --no-cache', [cli, 'check', '--no-cache', '--package', generated], '< 2000 ms');
// test checks first, with the same cache as check, then runs every scenario of the installation in process.
processRow(`test ${subject.label}`, [cli, 'test', '--install', join(subject.install.cwd, subject.install.file)], '< 4x baseline');
rmSync(process.env.PACKAGE_SDK_CACHE, { recursive: true, force: true });

/** Modules of scripts/bench/ that the pieces share, not pieces themselves. */
const HELPERS = new Set(['generate.mjs', 'subject.mjs']);
for (const piece of readdirSync(new URL('./bench/', import.meta.url)).filter((f) => f.endsWith('.mjs') && !HELPERS.has(f)).sort()) {
  const module = await import(new URL(`./bench/${piece}`, import.meta.url).href);
  if (typeof module.run === 'function') rows.push(...(await module.run({ root, cli, median, timeProcess, subject, rows })));
}

const width = Math.max(...rows.map((r) => r.name.length));
for (const row of rows) {
  if (row.spread !== undefined || row.unit === 'k') {
    console.log(formatRow(row, width)); // side by side with the baseline: CPU ratio, its spread, peak memory
    continue;
  }
  const value =
    row.unit === 'ms' ? `${row.value.toFixed(1)} ms` : row.unit === '%' ? `${row.value.toFixed(1)} %` : `${Math.round(row.value).toLocaleString('en-US')} ${row.unit}`;
  const ratio = row.ratio !== undefined ? `  ${row.ratio.toFixed(2)}x baseline` : '';
  const budget = row.budget ? `  (budget ${row.budget})` : '';
  console.log(`${row.name.padEnd(width)}  ${value.padStart(14)}${ratio}${budget}`);
}
