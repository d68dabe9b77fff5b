// The loader alone, in process (no CLI start-up): the real package of the benchmark (subject.mjs) through its
// installation, and the generated package of 1,000 objects; then the YAML of that package read by the scanner of
// common package YAML against the full parser (the yaml library's documents). Medians of warm runs of the built library.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  rows.push(...(await parserRows(root, median, generated)));
  return rows;
}

/** Every YAML text under `dir`. */
function yamlTexts(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlTexts(path);
    return entry.name.endsWith('.yaml') ? [readFileSync(path, 'utf8')] : [];
  });
}

/** The YAML of `dir` parsed by the scanner (through parseYaml) and by the full parser alone, and their ratio. */
async function parserRows(root, median, dir) {
  const { parseYaml, parseYamlFully } = await import(new URL('dist/load/yaml.js', `file://${root}`).href);
  const texts = yamlTexts(dir);
  const time = (parse) => {
    for (const text of texts) parse(text, 'bench.yaml'); // warm-up
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const start = process.hrtime.bigint();
      for (const text of texts) parse(text, 'bench.yaml');
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return median(samples);
  };
  const scanned = time(parseYaml);
  const full = time(parseYamlFully);
  return [
    { name: `parse YAML of ${texts.length} files, scanner (in process)`, value: scanned, unit: 'ms' },
    { name: `parse YAML of ${texts.length} files, full parser (in process, ${(full / scanned).toFixed(1)}x the scanner)`, value: full, unit: 'ms' },
  ];
}
