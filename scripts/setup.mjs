// Makes a fresh clone runnable: installs dependencies when package-lock.json changed since the last
// install, then builds when a source is newer than the build, and — for `npm test`, whose page tests open a
// real browser — Debian's Chromium when it is missing and this machine can install it (root with apt-get).
// `npm start`, `npm test` and `npm run bench` run it first, so a newcomer needs no other command.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIsStale, ROOT as root } from './build-state.mjs';

const stamp = join(root, 'node_modules', '.package-sdk-installed');
const lockDigest = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

function run(command) {
  process.stderr.write(`setup: ${command}\n`);
  execSync(command, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

// The local core's SQLite driver is an optional peer dependency (a user who only checks compiles no native
// code); the project's own tests run the local core, so a checkout gets it beside the locked dependencies.
const sqlite = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).peerDependencies['better-sqlite3'];

if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockDigest) {
  run('npm ci --no-audit --no-fund');
  installSqlite();
  writeFileSync(stamp, lockDigest);
}

/**
 * npm installs nothing over a peer dependency of the root, even with --no-save: the driver is installed in a
 * prefix of its own inside node_modules and linked where Node looks for it (its own dependencies resolve from
 * where it really is).
 */
function installSqlite() {
  const linked = join(root, 'node_modules', 'better-sqlite3');
  if (existsSync(linked)) return;
  run(`npm install --prefix node_modules/.sqlite --no-save --no-package-lock --no-audit --no-fund "better-sqlite3@${sqlite}"`);
  symlinkSync(join('.sqlite', 'node_modules', 'better-sqlite3'), linked);
}

if (buildIsStale()) run('npm run build --silent');

// The page tests (test/graph/) open Debian's Chromium, never a downloaded browser.
if (process.argv.includes('--browser') && !existsSync('/usr/bin/chromium')) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    run('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium');
  } else {
    process.stderr.write('setup: no /usr/bin/chromium — the page tests need it: sudo apt-get install -y chromium\n');
  }
}
