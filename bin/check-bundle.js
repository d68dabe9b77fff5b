// Loads dist/cli/check.bundle.cjs — or another lean job's bundle, dist/cli/graph.bundle.cjs — (see
// scripts/build-check-bundle.mjs) with V8's code cache beside it, and
// offers the precompiled schema validators the same way, loaded only when a file needs validating (a file
// known to the parse cache does not). Returns undefined when there is no bundle, or when the modules were
// compiled after it (a `tsc` run without the rest of the build), so the caller falls back to the modules.
import { readFileSync, statSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

/** A CommonJS file run from V8's code cache `<file without .cjs>.v8` when there is one. */
function runCached(file) {
  const code = readFileSync(file, 'utf8');
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

export function loadCheckBundle(root, job = 'check') {
  const file = join(root, `dist/cli/${job}.bundle.cjs`);
  try {
    if (statSync(file).mtimeMs < statSync(join(root, `dist/cli/${job}.js`)).mtimeMs) return undefined;
  } catch {
    return undefined;
  }
  const validators = {};
  globalThis[Symbol.for('package-sdk.validators')] = () =>
    (validators.loaded ??= runCached(join(root, 'dist/schema/validators.bundle.cjs'))).exports;
  const bundle = runCached(file);
  return { module: bundle.exports, script: bundle.script, validators };
}
