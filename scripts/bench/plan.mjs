// plan and apply of a generated installation (500 objects: task types, roles, work rules, processes) against
// the local core over loopback HTTP, through the built library: wall time and requests of a first plan, of its
// apply, and of the plan after it (no changes). The core's data directory is a fresh temp directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePackage } from './generate.mjs';

const OBJECTS = 500;

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)) } = {}) {
  const dist = (path) => new URL(`dist/${path}`, `file://${root.endsWith('/') ? root : `${root}/`}`).href;
  const [{ plan }, { apply }, { startCoreServer }] = await Promise.all([
    import(dist('plan/plan.js')), import(dist('plan/apply.js')), import(dist('server/server.js'))]);
  const packageDir = generatePackage(OBJECTS, { key: 'bench-plan' });
  const install = join(dirname(packageDir), 'packages.yaml');
  writeFileSync(install, 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: bench-plan\nspec:\n  packages: [{key: bench-plan, path: ./bench-plan}]\n');
  const out = join(dirname(packageDir), 'plan.json');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-plan-'));
  const core = await startCoreServer({ dataDir, token: 'bench', host: '127.0.0.1', port: 0 });
  const options = { server: core.url, processEnv: { CP_TOKEN: 'bench' } };
  const timed = async (work) => {
    const start = process.hrtime.bigint();
    const result = await work();
    return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  try {
    const first = await timed(() => plan({ ...options, install, out }));
    const applied = await timed(() => apply({ ...options, plan: out, autoApprove: true }));
    const again = await timed(() => plan({ ...options, install, out }));
    const label = `${OBJECTS} objects`;
    return [
      { name: `plan: first plan of ${label} (local core)`, value: first.ms, unit: 'ms' },
      { name: `plan: requests of the first plan of ${label}`, value: first.result.requests, unit: 'requests' },
      { name: `apply: ${label} (verification + writes)`, value: applied.ms, unit: 'ms' },
      { name: `apply: requests of applying ${label}`, value: applied.result.requests, unit: 'requests' },
      { name: `plan: plan after apply, no changes (${label})`, value: again.ms, unit: 'ms' },
    ];
  } finally {
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dirname(packageDir), { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await run()) console.log(`${row.name}: ${Math.round(row.value).toLocaleString('en-US')} ${row.unit}`);
}
