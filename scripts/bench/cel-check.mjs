// CEL inside a real `check` (the built CLI, a whole process, --no-cache): the generated process of 5,000
// expressions of cel.mjs written as a package, checked with its findings rendered as a user sees them. Its CPU
// time less that of the same process with every expression `true` is what checking the expressions costs —
// typing, reads, and locating each finding inside its string. The `true` keeps the length of the expression it
// replaces (a CEL comment pads it), so that reading the longer YAML file does not count as checking CEL.
// Budget: ≥ 20,000 expressions per CPU second.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { generateProcess } from './cel.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Prints the CPU time of the process it is imported into, when it exits. */
const CPU_REPORTER = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('cpu-seconds '+(u.user+u.system)/1e6+'\\n')})`;

/** A package holding the process, each expression replaced by `expression(source)`. */
function writePackage(dir, spec) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/processes`, { recursive: true });
  writeFileSync(`${dir}/package.yaml`, 'apiVersion: taimen.ai/v1\nkind: Package\nkey: celbench\nspec: {version: 1.0.0, displayName: CEL benchmark}\n');
  writeFileSync(`${dir}/processes/bench.yaml`, stringify({ apiVersion: 'taimen.ai/v1', kind: 'Process', key: 'bench', spec }, { lineWidth: 0 }));
}

/** The spec with every expression `true`, as long as the expression: the same file, the same structure, nothing to type. */
function trivial(spec, expressions) {
  const copy = structuredClone(spec);
  for (const { pointer } of expressions) {
    const path = pointer.split('/').slice(2).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    let node = copy;
    for (const key of path.slice(0, -1)) node = node[key];
    const length = String(node[path.at(-1)]).length;
    node[path.at(-1)] = length > 8 ? `true // ${'x'.repeat(length - 8)}` : 'true';
  }
  return copy;
}

function cpuSeconds(cli, dir) {
  const result = spawnSync(process.execPath, ['--import', CPU_REPORTER, cli, 'check', '--no-cache', '--package', dir], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const match = /cpu-seconds ([\d.]+)/.exec(result.stderr);
  if (match === null) throw new Error(`check gave no CPU time: ${result.stderr}`);
  return Number(match[1]);
}

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)), cli = `${root}bin/run.js`, median } = {}) {
  const processes = await import(new URL('dist/process/index.js', `file://${root.endsWith('/') ? root : `${root}/`}`).href);
  const spec = generateProcess();
  const expressions = processes.processExpressions(spec);
  const base = fileURLToPath(new URL('../../.bench/cel-check/', import.meta.url));
  writePackage(`${base}full/celbench`, spec);
  writePackage(`${base}trivial/celbench`, trivial(spec, expressions));
  const full = [];
  const empty = [];
  for (let r = 0; r <= RUNS; r++) {
    const f = cpuSeconds(cli, `${base}full/celbench`);
    const e = cpuSeconds(cli, `${base}trivial/celbench`);
    if (r > 0) full.push(f), empty.push(e);
  }
  rmSync(base, { recursive: true, force: true });
  const mid = median ?? ((values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  const cost = mid(full) - mid(empty);
  return [
    { name: `check of a process of ${expressions.length.toLocaleString('en-US')} expressions (CLI, CPU)`, value: mid(full) * 1000, unit: 'ms' },
    { name: 'the same process, every expression true (CLI, CPU)', value: mid(empty) * 1000, unit: 'ms' },
    { name: 'cel inside check (CLI): expressions per CPU second', value: expressions.length / cost, unit: 'expressions/s', budget: '≥ 20,000 expressions/s' },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await run()) console.log(`${row.name}: ${Math.round(row.value).toLocaleString('en-US')} ${row.unit}`);
}
