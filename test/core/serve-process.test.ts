import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { call, SEED, startTestCore, tempDir } from './support.js';

/**
 * `package-sdk core serve` as a user runs it: the built CLI in a child process. A SIGKILL in the middle of
 * a stream of writes must leave a database where every acknowledged write is present and every write is
 * whole (its row and its idempotency record, or neither).
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

interface Served {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, ['bin/run.js', 'core', 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const url = /"url":"([^"]+)"|listening on (\S+)/.exec(line);
      if (url) resolve({ child, url: url[1] ?? url[2]!, stdout, stderr, exited });
    });
    void exited.then((code) => reject(new Error(`core serve exited with ${code} before listening: ${stderr.join('')}`)));
  });
}

describe('core serve (the built CLI)', () => {
  it('prints its URL, serves the seeded objects, and stops cleanly on SIGTERM', async () => {
    const data = tempDir();
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const served = await serve(['--data', data, '--token', 'cli-token', '--version', '0.9.0', '--seed', SEED]);
    expect(served.stdout[0]).toMatch(/^core 0\.9\.0 listening on http:\/\/127\.0\.0\.1:\d+ \(data .+\)$/);
    const workspace = await call(served.url, 'cli-token', 'GET', '/api/v1/workspaces/11111111-2222-4333-8444-555555555555');
    expect(workspace.status).toBe(200);
    expect((await call(served.url, 'cli-token', 'GET', '/openapi.json')).body.info.version).toBe('0.9.0');
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.stdout.at(-1)).toBe('core stopped');
  });

  it('with --json prints one line with the URL and, without --token, the generated token', async () => {
    const data = tempDir();
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const served = await serve(['--data', data, '--json']);
    const started = JSON.parse(served.stdout[0]!);
    expect(started).toEqual({ url: served.url, dataDir: data, version: '0.10.0', token: expect.any(String) });
    expect((await call(served.url, started.token, 'GET', '/api/v1/roles')).status).toBe(200);
    served.child.kill('SIGINT');
    expect(await served.exited).toBe(0);
  });

  it('refuses a bad seed file with exit 2 and a message naming it', async () => {
    const data = tempDir();
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const seed = join(data, 'seed.yaml');
    writeFileSync(seed, 'workspaces: [not-a-uuid]\n');
    await expect(serve(['--data', data, '--seed', seed])).rejects.toThrow(/exited with 2.*seed\.yaml: workspaces\[0\]: id must be a UUID/s);
  });

  it('a SIGKILL in the middle of writes leaves every acknowledged write, and no half of one', async () => {
    const data = tempDir();
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const served = await serve(['--data', data, '--token', 't']);
    const acknowledged = new Map<string, number>();
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const key = randomUUID();
        try {
          const answer = await call(served.url, 't', 'POST', '/api/v1/task-types', { body: { key: 'crash', displayName: key }, headers: { 'Idempotency-Key': key } });
          if (answer.status === 201) acknowledged.set(key, answer.body.version);
          if (acknowledged.size >= 150 && !killed) {
            killed = true;
            served.child.kill('SIGKILL');
          }
        } catch {
          return; // the server is gone: this request may or may not have been written
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    await served.exited;
    expect(acknowledged.size).toBeGreaterThanOrEqual(150);

    const db = new Database(join(data, 'core.sqlite'));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = db.prepare("SELECT body FROM rows WHERE collection = 'task-types' AND key = 'crash'").all() as { body: string }[];
    const versions = rows.map((r) => JSON.parse(r.body).version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
    const stored = db.prepare('SELECT key FROM idempotency').all() as { key: string }[];
    expect(stored.length).toBe(rows.length);
    expect(new Set(stored.map((s) => s.key))).toEqual(new Set(rows.map((r) => JSON.parse(r.body).displayName as string)));
    db.close();

    const restarted = await startTestCore({ dataDir: data, token: 't' });
    try {
      for (const [key, version] of acknowledged) {
        const replay = await restarted.call('POST', '/api/v1/task-types', { body: { key: 'crash', displayName: key }, headers: { 'Idempotency-Key': key } });
        expect(replay.body.version).toBe(version);
      }
      const next = await restarted.call('POST', '/api/v1/task-types', { body: { key: 'crash', displayName: 'after' } });
      expect(next.body.version).toBe(versions.length + 1);
    } finally {
      await restarted.stop();
    }
  });
});
