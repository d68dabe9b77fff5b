// Bundles the `check` command's job into one CommonJS file (dist/check/cli.bundle.cjs) and records V8's code
// cache for it (dist/check/cli.bundle.v8) after a run on the bundled example, so that bin/run.js starts a
// plain `check` without resolving ~100 modules or compiling them: a pre-commit hook and an editor run it on
// every commit and keystroke. bin/run.js falls back to the unbundled modules when these files are absent or
// V8 rejects the cache (another Node.js version).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadCheckBundle } from '../bin/check-bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist/check/cli.bundle.cjs');

// The entry adds the precompiled validators to the bundle, behind a getter so that a check whose files are
// all known to the parse cache never evaluates them.
const entry = join(root, 'dist/check/cli.bundle-entry.js');
writeFileSync(entry, [
  "globalThis[Symbol.for('package-sdk.validators')] = () => require('./validators.generated.cjs');",
  "export * from './cli.js';",
  '',
].join('\n'));
await build({
  entryPoints: [entry],
  outfile: `${bundle}.tmp`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // The bundled modules find their data (schemas, validators) relative to their own place in dist/check/.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
renameSync(`${bundle}.tmp`, bundle);
rmSync(entry);
rmSync(`${bundle.replace(/\.cjs$/, '.v8')}`, { force: true });

// Run the bundle once on the example (with a private parse cache), then keep the compiled code.
process.env.PACKAGE_SDK_CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-bundle-'));
const loaded = loadCheckBundle(root);
if (!loaded) throw new Error('the check bundle did not load');
const quiet = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
try {
  await loaded.module.runCheckFast(['--install', join(root, 'fixtures/example/packages.yaml')], 'build');
  await loaded.module.runCheckFast(['--install', join(root, 'fixtures/example/packages.yaml'), '--no-cache'], 'build');
} finally {
  process.stdout.write = quiet;
  rmSync(process.env.PACKAGE_SDK_CACHE, { recursive: true, force: true });
}
const cache = `${bundle.replace(/\.cjs$/, '.v8')}`;
writeFileSync(`${cache}.tmp`, loaded.script.createCachedData());
renameSync(`${cache}.tmp`, cache);
