// `prepare` runs on `npm install` in a checkout and again on `npm pack`, which pre-commit runs in a row to
// install the hook: the build runs once, when a source is newer than the build, and its log goes to stderr,
// because `npm pack` prints the tarball's name on stdout and pre-commit reads the name from there.
import { execSync } from 'node:child_process';
import { buildIsStale, ROOT } from './build-state.mjs';

if (buildIsStale()) execSync('npm run build --silent', { cwd: ROOT, stdio: ['ignore', process.stderr, 'inherit'] });
