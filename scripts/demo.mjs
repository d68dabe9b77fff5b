// `npm start`: the main job of package-sdk on the bundled example (fixtures/example/), step by step, with
// the built CLI exactly as a user would run it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const install = 'fixtures/example/packages.yaml';

const steps = [
  { title: 'check — schema and rules over the installation and its packages', args: ['check', '--install', install] },
];

for (const [index, step] of steps.entries()) {
  console.log(`\n=== ${index + 1}/${steps.length} package-sdk ${step.args.join(' ')}\n    ${step.title}\n`);
  const result = spawnSync(process.execPath, ['bin/run.js', ...step.args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\nstep ${index + 1} failed (exit ${result.status}): package-sdk ${step.args.join(' ')}`);
    process.exit(result.status ?? 1);
  }
}
console.log('\nThe bundled example passed every step.');
