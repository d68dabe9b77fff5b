// Loads a bundled command job — dist/cli/<name>.bundle.cjs (see scripts/build-check-bundle.mjs): `check`,
// `test` — with V8's code cache beside it, and offers the precompiled schema validators the same way, loaded
// only when a file needs validating (a file known to the parse cache does not). Returns undefined when there
// is no bundle, or when the modules were compiled after it (a `tsc` run without the rest of the build), so
// the caller falls back to the modules.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const { setFlagsFromString } = require('node:v8');
const vm = require('node:vm');

const { createRequire } = Module;

/**
 * The V8 flags a lean job runs with. V8 takes a code cache only under the flags it was recorded with, and after
 * a flag changes it also refuses node's own cache of each module node loads then (~4 ms for a check). So bin/run.js
 * sets them once the job's bundle is loaded with the modules it requires, and the build records the bundles'
 * caches under V8's defaults and the validators' (loaded on first use) under these. A run is short: under V8's
 * default budget a function goes to the optimising compiler after a few thousand calls, which the per-file loops
 * of a check reach and then barely use, and the compiler's threads cost a fifth of a check's CPU. Sixteen times
 * the budget optimises only what stays hot (docs/performance.md).
 */
const PROCESS_V8_FLAGS = ['--interrupt-budget=1081344'];

function useProcessV8Flags() {
  for (const flag of PROCESS_V8_FLAGS) setFlagsFromString(flag);
}

/** A CommonJS file run from V8's code cache `<file without .cjs>.v8` when there is one. */
function runCached(file) {
  const code = readFileSync(file, 'latin1'); // the build writes bundles in ASCII: a one-byte read, no UTF-8 to decode
  let cachedData;
  try {
    cachedData = readFileSync(file.replace(/\.cjs$/, '.v8'));
  } catch {
    cachedData = undefined; // compiled from source: slower, same result
  }
  const script = new vm.Script(Module.wrap(code), { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, script };
}

/** The bundle of a command job (`check`, `test`): its exports and compiled script, and the validators it may load. */
function loadBundle(root, name) {
  const file = join(root, `dist/cli/${name}.bundle.cjs`);
  try {
    if (statSync(file).mtimeMs < statSync(join(root, `dist/cli/${name}.js`)).mtimeMs) return undefined;
  } catch {
    return undefined;
  }
  const validators = {};
  globalThis[Symbol.for('package-sdk.validators')] = () =>
    (validators.loaded ??= runCached(join(root, 'dist/schema/validators.bundle.cjs'))).exports;
  const bundle = runCached(file);
  return { module: bundle.exports, script: bundle.script, validators };
}

module.exports = { PROCESS_V8_FLAGS, loadBundle, useProcessV8Flags };
