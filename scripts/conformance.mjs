// `npm run test:conformance`: the suites that need the corpus written by the formats' authors (real packages,
// a bundle, the core's OpenAPI slices, the reference and its conformance tool). The corpus is read from
// PACKAGE_SDK_CORPUS (default ../shared/corpus beside the project); when that folder is missing the suite
// fails at once, in one line, and never skips quietly.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = resolve(root, process.env.PACKAGE_SDK_CORPUS ?? '../shared/corpus');
if (!existsSync(corpus) || !statSync(corpus).isDirectory()) {
  console.error(`test:conformance: no corpus at ${corpus} — set PACKAGE_SDK_CORPUS to the corpus folder (it holds claims/, fixtures/, kernos/, core-openapi/)`);
  process.exit(1);
}
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.conformance.config.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PACKAGE_SDK_CORPUS: corpus },
});
process.exit(result.status ?? 1);
