// `npm start`: the main job of package-sdk on the bundled example (fixtures/example/), step by step, with
// the built CLI exactly as a user would run it: check → test → lock → plan → apply against the embedded local core,
// then a second plan that finds nothing to do. It works on a copy in .package-sdk/demo/ (made afresh each
// time), so the example stays untouched and the lock, the plans and the core's database can be looked at.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.package-sdk', 'demo');
rmSync(work, { recursive: true, force: true });
cpSync(join(root, 'fixtures', 'example'), work, { recursive: true });

const core = ['--server', 'local', '--env', 'example.env'];
const steps = [
  { title: 'check: schema and rules over the installation and its package', args: ['check', '--install', 'packages.yaml'] },
  { title: 'test: the package scenarios in the local process engine, in virtual time', args: ['test', '--install', 'packages.yaml'] },
  { title: 'lock: pin every package source in packages.lock', args: ['lock', '--install', 'packages.yaml'] },
  { title: 'plan: what the local core needs, sealed by its hash', args: ['plan', '--install', 'packages.yaml', ...core, '--out', 'plan.json'] },
  { title: 'apply: exactly the reviewed plan, verified before the first write', args: ['apply', '--plan', 'plan.json', ...core, '--auto-approve'] },
  { title: 'plan again: the core now holds everything', args: ['plan', '--install', 'packages.yaml', ...core, '--out', 'plan-again.json'] },
];

for (const [index, step] of steps.entries()) {
  console.log(`\n=== ${index + 1}/${steps.length} package-sdk ${step.args.join(' ')}\n    ${step.title}\n`);
  const result = spawnSync(process.execPath, [join(root, 'bin', 'run.js'), ...step.args], { cwd: work, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\nstep ${index + 1} failed (exit ${result.status}): package-sdk ${step.args.join(' ')}`);
    process.exit(result.status ?? 1);
  }
}
console.log(`\nThe bundled example went through every step. Its lock, plans and the local core's data are in ${work}.`);
