#!/usr/bin/env node
// A plain `check` (pre-commit hooks, editors) takes a lean path that does not load the command framework, and so
// does a plain `graph` (an author drawing a process between two edits); anything they do not fully understand —
// help, usage errors, every other command — goes to oclif.
if (process.argv[2] === 'check') {
  const { fileURLToPath } = await import('node:url');
  const { createRequire } = await import('node:module');
  const { loadCheckBundle } = await import('./check-bundle.js');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const job = loadCheckBundle(root)?.module ?? (await import('../dist/cli/check.js'));
  const { version } = createRequire(import.meta.url)('../package.json');
  const exitCode = await job.runCheckFast(process.argv.slice(3), version);
  if (exitCode !== undefined) process.exitCode = exitCode;
} else if (process.argv[2] === 'graph') {
  const { fileURLToPath } = await import('node:url');
  const { loadCheckBundle } = await import('./check-bundle.js');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const job = loadCheckBundle(root, 'graph')?.module ?? (await import('../dist/cli/graph.js'));
  const exitCode = await job.runGraphFast(process.argv.slice(3));
  if (exitCode !== undefined) process.exitCode = exitCode;
}
if (process.exitCode === undefined) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
