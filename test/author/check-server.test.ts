/**
 * `check --server`: the core's verdict (POST /packages:test?checkOnly=true, here the real local core over HTTP)
 * merged with the offline check, every finding marked with its source; a core that cannot be reached fails the
 * report instead of passing quietly; `--schema-only` keeps what loading and the format schema find.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheckRequest } from '../../src/cli/check.js';
import { runServerCheck, type ServerCheckReport } from '../../src/cli/check-server.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const PROCESS = 'intake/processes/intake.yaml';
const base = (): string => {
  const dir = overlay(join(FIXTURES, 'edit/packages'));
  copies.push(dir);
  return dir;
};
const request = { paths: ['intake'], format: 'text' as const, json: true, listRules: false, cache: false };

describe('check --server', () => {
  it('asks the local core and marks each finding: the core reports it too, or only package-sdk does', async () => {
    const dir = base();
    const { readFileSync } = await import('node:fs');
    writeFileSync(join(dir, PROCESS), readFileSync(join(dir, PROCESS), 'utf8').replace('taskType: intake-review', 'taskType: intake-reviews'));
    const outcome = await runServerCheck({ ...request, server: 'local', cwd: dir }, 'test');
    const report = outcome.result as unknown as ServerCheckReport;
    expect(outcome.exitCode).toBe(1);
    expect(report.core).toEqual({ server: 'http://localhost/local', status: 'checked', packages: [{ key: 'intake', status: 'invalid' }] });
    expect(report.errors.map((f) => [f.code, f.file, f.source])).toEqual([['unknown_task_type', PROCESS, 'both']]);
  });

  it('a clean package is clean for both', async () => {
    const outcome = await runServerCheck({ ...request, server: 'local', cwd: base() }, 'test');
    expect(outcome.exitCode).toBe(0);
    expect((outcome.result as unknown as ServerCheckReport).core.packages).toEqual([{ key: 'intake', status: 'passed' }]);
  });

  it('a core that does not answer is an error of the report', async () => {
    const dir = base();
    const port = await closedPort();
    writeFileSync(join(dir, 'core.env'), 'CP_TOKEN=secret\n');
    const outcome = await runServerCheck({ ...request, server: `http://127.0.0.1:${port}`, env: join(dir, 'core.env'), cwd: dir }, 'test');
    const report = outcome.result as unknown as ServerCheckReport;
    expect(outcome.exitCode).toBe(1);
    expect(report.core.status).toBe('unreachable');
    expect(report.errors.map((f) => [f.code, f.source])).toEqual([['core_unreachable', 'core']]);
  });
});

describe('check --schema-only', () => {
  it('keeps the findings of the format schema and leaves out the rules\'', async () => {
    const dir = base();
    const { readFileSync } = await import('node:fs');
    const edit = (file: string, from: string, to: string): void => writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
    edit('intake/roles/intake-owner.yaml', 'name: Intake owner', 'name: 42');
    edit(PROCESS, 'taskType: intake-review', 'taskType: intake-reviews');
    const paths = [join(dir, 'intake')];
    const full = await runCheckRequest({ ...request, paths }, 'test');
    const schema = await runCheckRequest({ ...request, paths, schemaOnly: true }, 'test');
    const codes = (outcome: typeof full): string[] => (outcome.result as { errors: { code: string }[] }).errors.map((f) => f.code);
    expect(codes(full).sort()).toEqual(['schema_violation', 'unknown_task_type']);
    expect(codes(schema)).toEqual(['schema_violation']);
    expect(schema.exitCode).toBe(1);
  });
});

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
