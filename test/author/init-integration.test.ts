/**
 * `init --integration`: the new package also has an observer — its agent, running the image given — and the
 * integration/ project it runs; the package still checks clean and passes its scenario.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initPackage } from '../../src/author/init.js';
import { check } from '../../src/check/index.js';
import { Refusal } from '../../src/fs/refusal.js';
import { runTests } from '../../src/sandbox/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'package-sdk-init-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('init --integration', () => {
  it('writes the observer agent, its Python project and Dockerfile; the package checks clean and its scenario passes', async () => {
    const result = await initPackage({ dir: 'claims-intake', integration: true, image: 'registry.example.com/claims/observer:2.0.0', cwd });
    expect(result.created).toEqual(expect.arrayContaining([
      'claims-intake/agents/claims-intake-observer.yaml', 'claims-intake/integration/pyproject.toml', 'claims-intake/integration/src/claims_intake/observer.py',
      'claims-intake/integration/tests/test_observer.py', 'claims-intake/integration/Dockerfile',
    ]));
    const dir = join(cwd, 'claims-intake');
    const agent = parse(readFileSync(join(dir, 'agents/claims-intake-observer.yaml'), 'utf8')) as { spec: { executor: Record<string, unknown> } };
    expect(agent.spec.executor).toEqual({ kind: 'observer', image: 'registry.example.com/claims/observer:2.0.0', params: { entrypoint: 'claims_intake.observer:observe', intervalSeconds: 60 } });
    expect(readFileSync(join(dir, 'integration/src/claims_intake/observer.py'), 'utf8')).toContain('"kind": "claims-intake.requested"');
    expect((await check({ cwd: dir })).report).toMatchObject({ ok: true, errors: [], warnings: [] });
    const { report } = await runTests({ cwd: dir });
    expect(report.tests.map((test) => test.status)).toEqual(['passed']);
  });

  it('never overwrites: an existing integration file stops init before it writes anything', async () => {
    mkdirSync(join(cwd, 'third/integration'), { recursive: true });
    writeFileSync(join(cwd, 'third/integration/Dockerfile'), 'FROM scratch\n');
    const refusal = await initPackage({ dir: 'third', integration: true, cwd }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).message).toContain('third/integration/Dockerfile already exists');
    expect(existsSync(join(cwd, 'third/package.yaml'))).toBe(false);
  });
});
