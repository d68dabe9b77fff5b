// Bundles the lean command jobs — `check` (and `check-reuse`, its first step: a stored report printed without the
// checking code), `test`, `graph`, `plan` — each into one CommonJS file (dist/cli/<job>.bundle.cjs)
// and records V8's code cache for it (dist/cli/<job>.bundle.v8), and likewise for the precompiled validators
// (dist/schema/validators.bundle.*), after runs on the bundled example, so that bin/run.js starts them without
// resolving ~100 modules or compiling them: a pre-commit hook and an editor run `check` on every commit and
// keystroke, CI runs `test` on every push. bin/run.js falls back to the unbundled modules when a bundle is
// absent, and compiles from source when V8 rejects a cache (another Node.js version).
import { appendFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadBundle, useProcessV8Flags } from '../bin/check-bundle.js';
import { releaseYoungGeneration } from '../dist/load/young-generation.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const example = join(root, 'fixtures/example/packages.yaml');
const validators = join(root, 'dist/schema/validators.bundle.cjs');

/** The lean jobs, each warmed on the example before its code cache is kept. */
const JOBS = [
  {
    name: 'check',
    external: [],
    async warm(job) {
      await job.runCheckFast(['--install', example], 'build');
      await job.runCheckFast(['--install', example, '--no-cache'], 'build');
    },
  },
  {
    name: 'check-reuse',
    // Prints a stored report that still stands: the checking code (and the catalog of its rules) stays out.
    external: ['../check/index.js', '../check/catalog.js'],
    async warm(job) {
      // A copy of an example package, so that a comment can be added to one of its files as an editor would.
      const pkg = join(process.env.PACKAGE_SDK_CACHE, 'field-maintenance');
      cpSync(join(root, 'fixtures/example/packages/field-maintenance'), pkg, { recursive: true });
      const args = ['--package', pkg];
      const settle = () => new Promise((done) => setTimeout(done, 120)); // past the index's racy window
      await settle();
      await loaded.get('check').module.runCheckFast(args, 'build'); // stores the report
      await settle();
      const reused = [await job.runReusedCheckFast(args, 'build')];
      appendFileSync(join(pkg, 'package.yaml'), '# a comment\n'); // compared with the indexed file: the parser is warmed too
      await settle();
      reused.push(await job.runReusedCheckFast(args, 'build'));
      if (reused.includes(undefined)) throw new Error('the check-reuse bundle did not reuse a stored report');
    },
  },
  {
    name: 'test',
    // `test --server` is the full command's: the local core (its database, a native module) stays out of the bundle.
    external: ['../server/*'],
    async warm(job) {
      if ((await job.runTestFast(['--install', example])) !== 0) throw new Error('the test bundle did not pass the example');
    },
  },
  {
    name: 'graph',
    // graph draws on check's findings, so it bundles check's modules too.
    external: [],
    async warm(job) {
      await job.runGraphFast([join(root, 'fixtures/example/packages/field-maintenance')]);
    },
  },
  {
    name: 'plan',
    // A plain `plan` against a remote core: the embedded core (`--server local`) is the full command's.
    external: ['../server/*'],
    async warm(job) {
      const { startCoreServer } = await import(join(root, 'dist/server/server.js'));
      const dataDir = mkdtempSync(join(tmpdir(), 'package-sdk-bundle-core-'));
      // Without the local core's optional SQLite driver (an install for check alone, pre-commit's) the bundle is
      // kept unwarmed: its code cache then covers what loading compiles.
      const core = await startCoreServer({ dataDir, token: 'build', host: '127.0.0.1', port: 0, seed: { workspaces: [{ id: '5b0f6c1e-2a4d-4e8b-9c3f-7d1a2b3c4d5e' }] } }).catch((error) => {
        if (error?.code !== 'sqlite_missing') throw error;
        rmSync(dataDir, { recursive: true, force: true });
        return undefined;
      });
      if (core === undefined) return;
      Object.assign(process.env, { CP_TOKEN: 'build', NOTIFICATION_SERVICE_URL: core.url, NOTIFY_TOKEN: 'build' });
      try {
        const out = join(dataDir, 'plan.json');
        const code = await job.runPlanFast(['--install', example, '--server', core.url, '--env', join(root, 'fixtures/example/example.env'), '--out', out]);
        if (code !== 0) throw new Error('the plan bundle did not plan the example');
      } finally {
        for (const name of ['CP_TOKEN', 'NOTIFICATION_SERVICE_URL', 'NOTIFY_TOKEN']) delete process.env[name];
        await core.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  },
];
const bundleOf = (name) => join(root, `dist/cli/${name}.bundle.cjs`);

for (const job of JOBS) await bundleInto(bundleOf(job.name), join(root, `dist/cli/${job.name}.js`), job.external);
// The resident checker's client (`check --resident`), one CommonJS file with no code cache: a hook starts it on
// every commit, and linking its few ES modules cost more than the file is to compile.
await bundleInto(bundleOf('resident'), join(root, 'dist/cli/resident.js'));
// The validators with the parts of ajv they require, apart: a check whose files are all known to the parse
// cache never loads them. The metaschema goes with them (`jsonSchema`): a check that judges an embedded schema
// has files to validate.
const validatorsEntry = join(root, 'dist/schema/validators.entry.cjs');
writeFileSync(validatorsEntry, "module.exports = { ...require('./validators.generated.cjs'), jsonSchema: require('./metaschema.generated.cjs').jsonSchema };\n");
await bundleInto(validators, validatorsEntry);
for (const stale of [...JOBS.map((job) => bundleOf(job.name)), validators]) rmSync(stale.replace(/\.cjs$/, '.v8'), { force: true });

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
  writeFileSync(`${outfile}.tmp`, inAscii(readFileSync(`${outfile}.tmp`, 'utf8')), 'latin1');
  renameSync(`${outfile}.tmp`, outfile);
}

/**
 * The bundle's text with every character past ASCII written as a `\u` escape (esbuild leaves some in comments and
 * regular expressions), which means the same in strings, templates, regular expressions, identifiers and
 * comments: bin/check-bundle.js reads a bundle as one-byte text, which costs half a UTF-8 read (~7 ms for the check and
 * the validators).
 */
function inAscii(code) {
  // A character escaped as itself (`\µ`, an odd run of backslashes before it) loses that backslash to its escape.
  return code.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, character) =>
    `${slashes.slice(slashes.length % 2)}\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Run each bundle on the example (with a private parse cache), then keep the compiled code. Each bundle is loaded
// after the runs before it: a loaded bundle offers the validators to the code it runs.
process.env.PACKAGE_SDK_CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-bundle-'));
const quiet = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
const loaded = new Map();
try {
  for (const job of JOBS) {
    const bundle = loadBundle(root, job.name);
    if (!bundle) throw new Error(`the ${job.name} bundle did not load`);
    await job.warm(bundle.module);
    loaded.set(job.name, bundle);
  }
} finally {
  process.stdout.write = quiet;
  rmSync(process.env.PACKAGE_SDK_CACHE, { recursive: true, force: true });
}
// V8 takes a cache only under the flags it was recorded with. The runs may have held the young generation, a flag
// of a run, not of a process that starts: V8's own value back first. The jobs are loaded before bin/run.js sets
// the process's flags, the validators after (see PROCESS_V8_FLAGS).
releaseYoungGeneration();
for (const job of JOBS) writeCodeCache(bundleOf(job.name), loaded.get(job.name).script);
useProcessV8Flags();
const checked = loaded.get('check');
if (!checked.validators.loaded) throw new Error('the run without the parse cache did not validate');
writeCodeCache(validators, checked.validators.loaded.script);

function writeCodeCache(file, script) {
  const cache = file.replace(/\.cjs$/, '.v8');
  writeFileSync(`${cache}.tmp`, script.createCachedData());
  renameSync(`${cache}.tmp`, cache);
}
