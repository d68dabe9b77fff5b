#!/usr/bin/env node
// A plain `check` (pre-commit hooks, editors), a plain `test` in process (CI), a plain `graph` (an author
// drawing a process between two edits) and a plain `plan` against a remote core (CD) take a lean path that does not load the command framework; anything it
// does not fully understand — help, usage errors, every other command — goes to oclif.
const LEAN = { check: 'runCheckFast', test: 'runTestFast', graph: 'runGraphFast', plan: 'runPlanFast' };
const name = process.argv[2];
// `check --resident`: the working directory's resident checker answers, when one runs (else one is started, and
// this process checks as below).
if (name === 'check' && process.argv.includes('--resident', 3)) {
  const exitCode = await (await residentClient()).checkThroughResident(process.argv.slice(3));
  if (exitCode !== undefined) process.exitCode = exitCode;
}
if (process.exitCode === undefined && Object.hasOwn(LEAN, name)) {
  const { loadBundle, useProcessV8Flags } = await import('./check-bundle.js');
  const { fileURLToPath } = await import('node:url');
  const { createRequire } = await import('node:module');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { version } = createRequire(import.meta.url)('../package.json');
  // A check whose stored report still stands is printed by a small bundle, without loading the checking code;
  // when that bundle asked the index and printed nothing, the full job takes what it saw and does not ask again.
  // A check without the index (--no-cache) has no stored report to print.
  const argv = process.argv.slice(3);
  const indexed = !argv.includes('--no-cache');
  const reuse = name === 'check' && indexed ? loadBundle(root, 'check-reuse')?.module : undefined;
  let look;
  const reused = await reuse?.runReusedCheckFast(argv, version, (seen) => void (look = seen));
  const job = reused === undefined ? (loadBundle(root, name)?.module ?? (await import(`../dist/cli/${name}.js`))) : undefined;
  // The index names and hashes files with node's crypto, loaded on first use: a job that may use the index loads
  // it here, while node still takes its own cache of the modules it loads (not once the flags changed).
  if (job && indexed) await import('node:crypto');
  if (job) useProcessV8Flags();
  const exitCode = reused ?? (await job[LEAN[name]](argv, version, look));
  if (exitCode !== undefined) process.exitCode = exitCode;
}
if (process.exitCode === undefined) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}

/**
 * The resident checker's client: its CommonJS bundle, required (no ES module graph to link on every commit), or
 * the module when there is no bundle or it is older (a `tsc` run without the rest of the build).
 */
async function residentClient() {
  // node's own modules without an ES module facade each, where node has getBuiltinModule (20.16 and later)
  const { createRequire } = process.getBuiltinModule?.('node:module') ?? (await import('node:module'));
  const require = createRequire(import.meta.url);
  const { statSync } = require('node:fs');
  const bundle = require('node:url').fileURLToPath(new URL('../dist/cli/resident.bundle.cjs', import.meta.url));
  const modified = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (modified(bundle) >= modified(new URL('../dist/cli/resident.js', import.meta.url))) return require(bundle);
  return import('../dist/cli/resident.js');
}
