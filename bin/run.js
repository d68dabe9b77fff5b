#!/usr/bin/env node
// A plain `check` (pre-commit hooks, editors) takes a lean path that does not load the command framework;
// anything it does not fully understand — help, usage errors, every other command — goes to oclif.
if (process.argv[2] === 'check') {
  const { fileURLToPath } = await import('node:url');
  const { createRequire } = await import('node:module');
  const { loadCheckBundle } = await import('./check-bundle.js');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const job = loadCheckBundle(root)?.module ?? (await import('../dist/cli/check.js'));
  const { version } = createRequire(import.meta.url)('../package.json');
  const exitCode = await job.runCheckFast(process.argv.slice(3), version);
  if (exitCode !== undefined) process.exitCode = exitCode;
}
if (process.exitCode === undefined) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
