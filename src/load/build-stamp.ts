/**
 * What names a build of package-sdk for the files it keeps between runs: the workspace index of `check`
 * (parse-cache.ts) and the resident checker's socket (cli/resident.ts) — a new build never trusts an old
 * verdict, nor asks a checker that runs old code.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * What makes a verdict of this build: its version, the compiled modules (every build writes them all anew; the
 * bundles of the lean jobs are made from them, and share one index: the small bundle that prints a stored
 * report reads what the full one stored), the YAML loader, the schema validators and the schemas themselves
 * (edited without a build, they are compiled at run time).
 */
export function buildStamp(): string {
  const root = new URL('../../', import.meta.url); // dist/load/ and the bundle in dist/cli/ are as deep
  const require = createRequire(import.meta.url);
  const parts = [String((require(fileURLToPath(new URL('package.json', root))) as { version: string }).version)];
  const schemas = ['object', 'view', 'test', 'lock', 'plan', 'knowledge-pack', 'knowledge-template'].map((name) => new URL(`schema/v1/${name}.schema.json`, root));
  for (const file of [new URL('dist/load/parse-cache.js', root), new URL('dist/load/yaml.js', root), new URL('dist/schema/validators.generated.cjs', root), ...schemas]) {
    try {
      const info = statSync(new URL(file));
      parts.push(`${info.size}:${info.mtimeMs}`);
    } catch {
      parts.push('absent');
    }
  }
  return parts.join('|');
}
