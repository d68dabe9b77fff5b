#!/usr/bin/env node
// A plain `check` (pre-commit hooks, editors) takes a lean path that does not load the command framework;
// anything it does not fully understand — help, usage errors, every other command — goes to oclif.
if (process.argv[2] === 'check') {
  const { runCheckFast } = await import('../dist/check/cli.js');
  const { createRequire } = await import('node:module');
  const { version } = createRequire(import.meta.url)('../package.json');
  const exitCode = await runCheckFast(process.argv.slice(3), version);
  if (exitCode !== undefined) {
    process.exitCode = exitCode;
  }
}
if (process.exitCode === undefined) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
