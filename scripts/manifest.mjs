// oclif.manifest.json, written by oclif's own CLI with its check for a newer oclif turned off: that check asks
// the npm registry in the background on every build and prints a warning about an oclif this project does not use.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const oclif = createRequire(import.meta.url).resolve('oclif/bin/run.js');
execFileSync(process.execPath, [oclif, 'manifest'], { stdio: 'inherit', env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' } });
