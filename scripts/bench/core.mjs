// Throughput of the local core (src/server/) over loopback HTTP, through the built module: catalog reads
// (GET /api/v1/task-types?key=…, the installer's most frequent call) and task-type writes (POST
// /api/v1/task-types: one SQLite transaction each, with an Idempotency-Key). Bounded request counts, 8 in
// flight, loopback only; the data directory is a fresh temp directory, removed afterwards.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const READS = 3000;
const WRITES = 1000;
const IN_FLIGHT = 8;

/** Requests per second for `count` requests made by `IN_FLIGHT` concurrent loops; each answer must be `status`. */
async function throughput(count, status, request) {
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const i = next++;
      const answer = await request(i);
      if (answer.status !== status) throw new Error(`request ${i}: HTTP ${answer.status} ${await answer.text()}`);
      await answer.arrayBuffer();
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

export async function run({ root = fileURLToPath(new URL('../../', import.meta.url)) } = {}) {
  const { startCoreServer } = await import(new URL('dist/server/server.js', `file://${root.endsWith('/') ? root : `${root}/`}`).href);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-core-'));
  const core = await startCoreServer({ dataDir, token: 'bench', host: '127.0.0.1', port: 0 });
  const headers = { Authorization: 'Bearer bench', 'Content-Type': 'application/json' };
  try {
    for (let v = 0; v < 5; v++) {
      await fetch(`${core.url}/api/v1/task-types`, { method: 'POST', headers, body: JSON.stringify({ key: 'bench-read', displayName: `v${v}` }) });
    }
    await throughput(200, 200, () => fetch(`${core.url}/api/v1/task-types?key=bench-read&status=active&limit=100`, { headers })); // warm-up
    const reads = await throughput(READS, 200, () => fetch(`${core.url}/api/v1/task-types?key=bench-read&status=active&limit=100`, { headers }));
    const writes = await throughput(WRITES, 201, (i) =>
      fetch(`${core.url}/api/v1/task-types`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': randomUUID() },
        body: JSON.stringify({ key: `bench-write-${i % 50}`, displayName: `Task ${i}`, fieldSchema: { type: 'object', properties: { amount: { type: 'number' } } } }),
      }),
    );
    return [
      { name: `core: catalog read (GET /task-types?key=…), ${READS.toLocaleString('en-US')} requests`, value: reads, unit: 'requests/s' },
      { name: `core: task-type write (POST /task-types), ${WRITES.toLocaleString('en-US')} requests`, value: writes, unit: 'requests/s' },
    ];
  } finally {
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await run()) console.log(`${row.name}: ${Math.round(row.value).toLocaleString('en-US')} ${row.unit}`);
}
