// Throughput of the package test engine (src/sandbox/) through the built modules: the scenarios of the real
// package of the benchmark (subject.mjs), loaded once, then run again and again in process (each run builds its
// engines, CEL environments and mocks anew, as `package-sdk test` does). Reported: scenarios per second, wall
// clock and CPU time.
const ROUNDS = 20;

export async function run({ root, subject }) {
  const { loadTargets } = await import(new URL('dist/load/targets.js', `file://${root}`).href);
  const { Catalog } = await import(new URL('dist/sandbox/catalog.js', `file://${root}`).href);
  const { runScenario } = await import(new URL('dist/sandbox/scenario.js', `file://${root}`).href);
  const workspace = await loadTargets({ cwd: subject.install.cwd, install: subject.install.file });
  const pkg = workspace.package(subject.package.key);
  const catalog = Catalog.forPackage(workspace, pkg.key);
  const once = async () => {
    for (const test of pkg.tests) {
      const result = await runScenario(test.document, catalog, pkg.key);
      if (result.status !== 'passed') throw new Error(`${test.file}: ${result.failure?.message}`);
    }
  };
  await once(); // warm: compiled schemas and checked expressions of the first run are not what we measure
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) await once();
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const scenarios = ROUNDS * pkg.tests.length;
  return [
    { name: `sandbox: ${subject.label} scenarios per second (${pkg.tests.length} scenarios × ${ROUNDS})`, value: Math.round(scenarios / wallSeconds), unit: 'scenarios/s' },
    { name: `sandbox: ${subject.label} scenarios per CPU second`, value: Math.round(scenarios / cpuSeconds), unit: 'scenarios/s' },
  ];
}
