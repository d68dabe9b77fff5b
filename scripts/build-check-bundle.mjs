// Bundles the `check` command's job into one CommonJS file (dist/cli/check.bundle.cjs) and records V8's code
// cache for it (dist/cli/check.bundle.v8), and likewise for the precompiled validators (dist/schema/validators.bundle.*)
// after runs on the bundled example, so that bin/run.js starts a plain `check` without resolving ~100 modules
// or compiling them: a pre-commit hook and an editor run it on every commit and keystroke. bin/run.js falls
// back to the unbundled modules when the bundle is absent, and compiles from source when V8 rejects a cache
// (another Node.js version).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadCheckBundle } from '../bin/check-bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist/cli/check.bundle.cjs');

const validators = join(root, 'dist/schema/validators.bundle.cjs');
// `graph` takes the same lean path: its job draws on check's findings, so it bundles check's modules too.
const graphBundle = join(root, 'dist/cli/graph.bundle.cjs');
await bundleInto(bundle, join(root, 'dist/cli/check.js'));
await bundleInto(graphBundle, join(root, 'dist/cli/graph.js'));
// The validators with the parts of ajv they require, apart: a check whose files are all known to the parse
// cache never loads them.
await bundleInto(validators, join(root, 'dist/schema/validators.generated.cjs'));
for (const stale of [bundle, validators, graphBundle]) rmSync(stale.replace(/\.cjs$/, '.v8'), { force: true });

async function bundleInto(outfile, entry) {
  await build({
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
    // Graphviz (WebAssembly) stays a module of its own, loaded only when an SVG is drawn.
    external: ['@viz-js/viz'],
  });
  renameSync(`${outfile}.tmp`, outfile);
}

// Run the bundle once on the example (with a private parse cache), then keep the compiled code.
process.env.PACKAGE_SDK_CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-bundle-'));
const loaded = loadCheckBundle(root);
if (!loaded) throw new Error('the check bundle did not load');
let graphJob;
const quiet = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
try {
  await loaded.module.runCheckFast(['--install', join(root, 'fixtures/example/packages.yaml')], 'build');
  await loaded.module.runCheckFast(['--install', join(root, 'fixtures/example/packages.yaml'), '--no-cache'], 'build');
  // The graph bundle after check's runs: loading a bundle takes over the validators' getter.
  graphJob = loadCheckBundle(root, 'graph');
  if (!graphJob) throw new Error('the graph bundle did not load');
  await graphJob.module.runGraphFast([join(root, 'fixtures/example/packages/field-maintenance')]);
} finally {
  process.stdout.write = quiet;
  rmSync(process.env.PACKAGE_SDK_CACHE, { recursive: true, force: true });
}
writeCodeCache(bundle, loaded.script);
writeCodeCache(graphBundle, graphJob.script);
if (!loaded.validators.loaded) throw new Error('the run without the parse cache did not validate');
writeCodeCache(validators, loaded.validators.loaded.script);

function writeCodeCache(file, script) {
  const cache = file.replace(/\.cjs$/, '.v8');
  writeFileSync(`${cache}.tmp`, script.createCachedData());
  renameSync(`${cache}.tmp`, cache);
}
