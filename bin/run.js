#!/usr/bin/env node
// CommonJS (bin/package.json): node starts a CommonJS entry without its ES module loader, ~4 ms of every run —
// a pre-commit hook's, an editor's — and the lean paths below load CommonJS bundles.
//
// A plain `check` (pre-commit hooks, editors), a plain `test` in process (CI), a plain `graph` (an author
// drawing a process between two edits) and a plain `plan` against a remote core (CD) take a lean path that does not load the command framework; anything it
// does not fully understand — help, usage errors, every other command — goes to oclif.
'use strict';
const { join } = require('node:path');

const LEAN = { check: 'runCheckFast', test: 'runTestFast', graph: 'runGraphFast', plan: 'runPlanFast' };
const ROOT = join(__dirname, '..');

async function main() {
  const name = process.argv[2];
  // `check`: the working directory's resident checker answers, when one runs (with --resident, else one is started;
  // --no-resident asks none); when none answers, this process checks as below.
  if (name === 'check') {
    const client = await residentClient();
    const use = client.residentUse(process.argv.slice(3), process.env);
    const exitCode = use === 'never' ? undefined : await client.checkThroughResident(process.argv.slice(3), use === 'always');
    if (exitCode !== undefined) process.exitCode = exitCode;
  }
  if (process.exitCode === undefined && Object.hasOwn(LEAN, name)) {
    const { loadBundle, useProcessV8Flags } = require('./check-bundle.js');
    const { version } = require('../package.json');
    // A check whose stored report still stands is printed by a small bundle, without loading the checking code;
    // when that bundle asked the index and printed nothing, the full job takes what it saw and does not ask again.
    // A check without the index (--no-cache) has no stored report to print.
    const argv = process.argv.slice(3);
    const indexed = !argv.includes('--no-cache');
    const reuse = name === 'check' && indexed ? loadBundle(ROOT, 'check-reuse')?.module : undefined;
    let look;
    const reused = await reuse?.runReusedCheckFast(argv, version, (seen) => void (look = seen));
    const job = reused === undefined ? (loadBundle(ROOT, name)?.module ?? (await import(`../dist/cli/${name}.js`))) : undefined;
    // The index names and hashes files with node's crypto, loaded on first use: a job that may use the index loads
    // it here, while node still takes its own cache of the modules it loads (not once the flags changed).
    if (job && indexed) require('node:crypto');
    if (job) useProcessV8Flags();
    const exitCode = reused ?? (await job[LEAN[name]](argv, version, look));
    if (exitCode !== undefined) process.exitCode = exitCode;
  }
  if (process.exitCode === undefined) {
    const { execute } = require('@oclif/core');
    // The project's folder, not this file's: oclif looks for the nearest package.json, and bin/ has its own.
    await execute({ dir: ROOT });
  }
}

/**
 * The resident checker's client: its CommonJS bundle (no ES module graph to link on every commit), or the module
 * when there is no bundle or it is older (a `tsc` run without the rest of the build).
 */
async function residentClient() {
  const { statSync } = require('node:fs');
  const bundle = join(ROOT, 'dist/cli/resident.bundle.cjs');
  const modified = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (modified(bundle) >= modified(join(ROOT, 'dist/cli/resident.js'))) return require(bundle);
  return import('../dist/cli/resident.js');
}

void main();
