/** A new user's first minutes: `init demo && cd demo && check && test`, through the built CLI. */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, runCli, scratchDir } from '../support/cli.js';

describe('package-sdk init (built CLI)', () => {
  const root = scratchDir('package-sdk-init-');
  const demo = join(root, 'demo');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes a package that passes check and its own scenario', async () => {
    const init = await runCli(['init', 'demo', '--display-name', 'Demo requests', '--license', 'Apache-2.0'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created demo/processes/demo.yaml');
    const check = await runCli(['check'], { cwd: demo });
    expect(check.stdout.trim().split('\n').at(-1)).toBe('ok: packages 1, objects 4, tests 1');
    expect(check.code).toBe(0);
    const test = await runCli(['test'], { cwd: demo });
    expect(test.stdout, test.stderr).toMatch(/^1 passed, 0 failed$/m);
    expect(test.code).toBe(0);
  });

  it('puts engines in the manifest and the modeline of the installed schema in every YAML file', () => {
    const manifest = parse(readFileSync(join(demo, 'package.yaml'), 'utf8'));
    expect(manifest.spec).toMatchObject({ displayName: 'Demo requests', license: 'Apache-2.0', engines: { 'control-plane': '>=0.9,<0.11' } });
    for (const [file, schema] of [['package.yaml', 'object'], ['processes/demo.yaml', 'object'], ['agents/demo-process.yaml', 'object'], ['tests/demo.test.yaml', 'test']]) {
      const first = readFileSync(join(demo, file!), 'utf8').split('\n')[0]!;
      const target = first.replace('# yaml-language-server: $schema=', '');
      expect(join(demo, file!, '..', target)).toBe(join(ROOT, 'schema/v1', `${schema}.schema.json`));
    }
  });

  it('writes the README sections and a workflow that checks, tests, plans on tags and applies behind an approval', async () => {
    expect((await runCli(['docs', 'package', '.', '--check'], { cwd: demo })).code).toBe(0);
    const workflow = parse(readFileSync(join(demo, '.github/workflows/package.yml'), 'utf8'));
    const runs = (job: string): string => workflow.jobs[job].steps.map((step: { run?: string }) => step.run ?? '').join('\n');
    expect(runs('check')).toContain('package-sdk check --format github');
    expect(runs('check')).toContain('package-sdk test');
    expect(workflow.jobs.plan.if).toContain('refs/tags/');
    expect(runs('plan')).toContain('package-sdk plan --install packages.yaml');
    expect(workflow.jobs.plan.steps.some((step: { uses?: string }) => step.uses?.startsWith('actions/upload-artifact'))).toBe(true);
    expect(workflow.jobs.apply.environment).toBe('production');
    expect(runs('apply')).toMatch(/package-sdk apply --plan plan\.json .*--plan-hash/);
  });

  it('never overwrites: a second init is refused and changes nothing', async () => {
    const before = readFileSync(join(demo, 'processes/demo.yaml'), 'utf8');
    const again = await runCli(['init', 'demo'], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('demo/package.yaml already exists');
    expect(readFileSync(join(demo, 'processes/demo.yaml'), 'utf8')).toBe(before);
  });

  it('refuses a key that is not the directory name', async () => {
    const result = await runCli(['init', 'other', '--key', 'shop'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the key of a package is the name of its directory: 'shop' is not 'other'");
  });
});
