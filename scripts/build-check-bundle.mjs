// Bundles the jobs of `check` and `test` each into one CommonJS file (dist/cli/<job>.bundle.cjs) and records
// V8's code cache for it (dist/cli/<job>.bundle.v8), and likewise for the precompiled validators
// (dist/schema/validators.bundle.*) after runs on the bundled example, so that bin/run.js starts a plain `check`
// or `test` without resolving ~100 modules or compiling them: a pre-commit hook and an editor run `check` on
// every commit and keystroke, CI runs `test` on every push. bin/run.js falls back to the unbundled modules when
// a bundle is absent, and compiles from source when V8 rejects a cache (another Node.js version).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadBundle } from '../bin/check-bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist/cli/check.bundle.cjs');
const testBundle = join(root, 'dist/cli/test.bundle.cjs');

const validators = join(root, 'dist/schema/validators.bundle.cjs');
await bundleInto(bundle, join(root, 'dist/cli/check.js'));
// `test --server` is the full command's: the local core (its database, a native module) stays out of the bundle.
await bundleInto(testBundle, join(root, 'dist/cli/test.js'), ['../server/*']);
// The validators with the parts of ajv they require, apart: a check whose files are all known to the parse
// cache never loads them.
await bundleInto(validators, join(root, 'dist/schema/validators.generated.cjs'));
for (const stale of [bundle, testBundle, validators]) rmSync(stale.replace(/\.cjs$/, '.v8'), { force: true });

async function bundleInto(outfile, entry, external = []) {
  await build({
    external,
    entryPoints: [entry],
    outfile: `${outfile}.tmp`,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The bundled modules find their data (schemas, validators) relative to their own place two levels below the package root.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  });
  renameSync(`${outfile}.tmp`, outfile);
}

// Run each bundle on the example (with a private parse cache), then keep the compiled code.
process.env.PACKAGE_SDK_CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-bundle-'));
const example = join(root, 'fixtures/example/packages.yaml');
const quiet = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
let loaded, loadedTest;
try {
  loaded = loadBundle(root, 'check');
  if (!loaded) throw new Error('the check bundle did not load');
  await loaded.module.runCheckFast(['--install', example], 'build');
  await loaded.module.runCheckFast(['--install', example, '--no-cache'], 'build');
  // Loaded after the check runs: each bundle offers the validators to the code it runs.
  loadedTest = loadBundle(root, 'test');
  if (!loadedTest) throw new Error('the test bundle did not load');
  if ((await loadedTest.module.runTestFast(['--install', example])) !== 0) throw new Error('the test bundle did not pass the example');
} finally {
  process.stdout.write = quiet;
  rmSync(process.env.PACKAGE_SDK_CACHE, { recursive: true, force: true });
}
writeCodeCache(bundle, loaded.script);
writeCodeCache(testBundle, loadedTest.script);
if (!loaded.validators.loaded) throw new Error('the run without the parse cache did not validate');
writeCodeCache(validators, loaded.validators.loaded.script);

function writeCodeCache(file, script) {
  const cache = file.replace(/\.cjs$/, '.v8');
  writeFileSync(`${cache}.tmp`, script.createCachedData());
  renameSync(`${cache}.tmp`, cache);
}
