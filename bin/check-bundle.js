// Loads dist/check/cli.bundle.cjs (see scripts/build-check-bundle.mjs) with V8's code cache beside it.
// Returns undefined when there is no bundle, or when the modules were compiled after it (a `tsc` run without
// the rest of the build), so the caller falls back to the unbundled modules.
import { readFileSync, statSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

export function loadCheckBundle(root) {
  const file = join(root, 'dist/check/cli.bundle.cjs');
  let code;
  try {
    if (statSync(file).mtimeMs < statSync(join(root, 'dist/check/cli.js')).mtimeMs) return undefined;
    code = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let cachedData;
  try {
    cachedData = readFileSync(join(root, 'dist/check/cli.bundle.v8'));
  } catch {
    cachedData = undefined; // compiled from source: slower, same result
  }
  const script = new vm.Script(Module.wrap(code), { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return { module: module.exports, script };
}
