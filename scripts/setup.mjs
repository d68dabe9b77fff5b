// Makes a fresh clone runnable: installs dependencies when package-lock.json changed since the last
// install, then builds when a source is newer than the build, and — for `npm test`, whose page tests open a
// real browser — Debian's Chromium when it is missing and this machine can install it (root with apt-get).
// `npm start`, `npm test` and `npm run bench` run it first, so a newcomer needs no other command.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'node_modules', '.package-sdk-installed');
const lockDigest = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

function run(command) {
  process.stderr.write(`setup: ${command}\n`);
  execSync(command, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockDigest) {
  run('npm ci --no-audit --no-fund');
  writeFileSync(stamp, lockDigest);
}

const built = join(root, 'oclif.manifest.json');
const sourcesChanged = !existsSync(built) ||
  Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs) > statSync(built).mtimeMs;
if (sourcesChanged) run('npm run build --silent');

// The page tests (test/graph/) open Debian's Chromium, never a downloaded browser.
if (process.argv.includes('--browser') && !existsSync('/usr/bin/chromium')) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    run('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium');
  } else {
    process.stderr.write('setup: no /usr/bin/chromium — the page tests need it: sudo apt-get install -y chromium\n');
  }
}
