// `lock` of an installation with 20 git packages served over smart HTTP on loopback: cold cache (mirrors
// cloned, every package extracted) and warm cache (tags fetched, packages extracted again — lock never
// trusts the cache). Whole-process times of the built CLI, medians.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGitServer } from '../../test/lock/git-http-server.mjs';

const PACKAGES = 20;
const RUNS = Number(process.env.BENCH_LOCK_RUNS ?? 5);
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

function git(cwd, ...args) {
  execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, stdio: 'ignore' });
}

/** A repository holding package `key` (a manifest and five roles) at tag v1.0.0, published bare under `served`. */
function publishPackage(root, served, key) {
  const work = join(root, 'work', key);
  mkdirSync(join(work, 'roles'), { recursive: true });
  writeFileSync(join(work, 'package.yaml'), `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${key}\nspec: {version: 1.0.0}\n`);
  for (let i = 0; i < 5; i++) {
    writeFileSync(join(work, 'roles', `r${i}.yaml`), `apiVersion: taimen.ai/v1\nkind: Role\nkey: ${key}-r${i}\nspec: {name: Role ${i}}\n`);
  }
  git(work, 'init', '--quiet');
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'release');
  git(work, 'tag', 'v1.0.0');
  git(root, 'clone', '--quiet', '--bare', work, join(served, `${key}.git`));
}

function timeLock(cli, install, cache) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, 'lock', '--install', install], {
      env: { ...process.env, PACKAGE_SDK_CACHE: cache }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (status) => {
      if (status !== 0) reject(new Error(`lock exited ${status}: ${stderr}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

export async function run({ cli, median }) {
  const root = mkdtempSync(join(tmpdir(), 'package-sdk-bench-lock-'));
  const served = join(root, 'served');
  mkdirSync(served);
  const server = await startGitServer(served);
  try {
    const entries = [];
    for (let i = 0; i < PACKAGES; i++) {
      publishPackage(root, served, `pkg-${i}`);
      entries.push(`    - {key: pkg-${i}, git: ${server.url}/pkg-${i}.git, ref: v1.0.0}`);
    }
    const install = join(root, 'packages.yaml');
    writeFileSync(install, `apiVersion: taimen.ai/v1\nkind: Installation\nkey: bench\nspec:\n  packages:\n${entries.join('\n')}\n`);
    const cache = join(root, 'cache');
    const cold = [];
    const warm = [];
    for (let i = 0; i < RUNS; i++) {
      rmSync(cache, { recursive: true, force: true });
      cold.push(await timeLock(cli, install, cache));
      warm.push(await timeLock(cli, install, cache));
    }
    return [
      { name: `lock ${PACKAGES} git packages over HTTP, cold cache`, value: median(cold), unit: 'ms' },
      { name: `lock ${PACKAGES} git packages over HTTP, warm cache`, value: median(warm), unit: 'ms' },
    ];
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
