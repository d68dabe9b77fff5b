/** A new user's first minutes: `init demo && cd demo && check && test`, through the built CLI. */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, ROOT, runCli, scratchDir } from '../support/cli.js';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
}

/**
 * Runs the \`run\` steps of a workflow job with bash in \`dir\`, as a runner would: \`package-sdk\` is this
 * checkout's CLI, \`\${{ … }}\` expressions are replaced from \`expressions\`, outputs go to GITHUB_OUTPUT.
 */
function runJob(steps: readonly Step[], dir: string, expressions: Record<string, string>): Record<string, string> {
  const bin = join(dir, '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'package-sdk'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'package-sdk'), 0o755);
  const output = join(dir, '.github-output');
  writeFileSync(output, '');
  for (const step of steps) {
    if (!step.run || step.run.startsWith('npm install --global')) continue; // the shim above is the installed tool
    const script = step.run.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_whole, expression: string) => expressions[expression] ?? '');
    const result = spawnSync('bash', ['-e', '-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_OUTPUT: output, NO_COLOR: '1' } });
    if (result.status !== 0) throw new Error(`step ${step.name ?? step.run}: ${result.stdout}${result.stderr}`);
  }
  return Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
}

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

  it('the plan job of the workflow builds a plan, and the apply job applies exactly that plan by its hash', () => {
    const workflow = parse(readFileSync(join(demo, '.github/workflows/package.yml'), 'utf8'));
    const runner = join(root, 'runner');
    cpSync(demo, join(runner, 'demo'), { recursive: true }); // actions/checkout with path: demo
    const expressions = { 'vars.CP_SERVER': 'local', 'secrets.CP_TOKEN': '' };
    const planned = runJob(workflow.jobs.plan.steps, runner, expressions);
    expect(planned['plan-hash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    const plan = JSON.parse(readFileSync(join(runner, 'plan.json'), 'utf8'));
    expect(plan.planHash).toBe(planned['plan-hash']);
    runJob(workflow.jobs.apply.steps, runner, { ...expressions, 'needs.plan.outputs.plan-hash': planned['plan-hash']! });
    expect(() => runJob(workflow.jobs.apply.steps, runner, { ...expressions, 'needs.plan.outputs.plan-hash': `sha256:${'0'.repeat(64)}` })).toThrow(/plan/);
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
