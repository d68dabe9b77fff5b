/**
 * A new user's first minutes: `init demo && cd demo && check && test`, through the built CLI; and a package in a
 * repository of packages, whose workflow runs step by step with the action of this repository's action.yml.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { actionReference } from '../../src/author/ci.js';
import { YamlEditor } from '../schema/yaml-editor.js';
import { copyCheckout } from '../support/checkout.js';
import { ROOT, runCli, scratchDir, startCli, type RunningCli } from '../support/cli.js';

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
  uses?: string;
  with?: Record<string, string>;
  'working-directory'?: string;
}

interface Job {
  defaults?: { run?: { 'working-directory'?: string } };
  steps: Step[];
}

interface Workflow extends Job {
  jobs: Record<string, Job>;
}

/** `${{ … }}` expressions of a step, replaced from `expressions`. */
function expand(text: string, expressions: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_whole, expression: string) => expressions[expression] ?? '');
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, what: string): void {
  const result = spawnSync('bash', ['-e', '-c', script], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  if (result.status !== 0) throw new Error(`step ${what}: ${result.stdout}${result.stderr}`);
}

/**
 * The composite action of this repository (action.yml) run as a runner runs it, from a copy of this checkout's
 * files (what `uses: …@tag` fetches): its `run` steps in order, installing into a global npm folder of the test.
 * actions/setup-node is this Node.js.
 */
function installAction(actionPath: string, globalPrefix: string): NodeJS.ProcessEnv {
  copyCheckout(actionPath);
  const env = { npm_config_prefix: globalPrefix, PATH: `${join(globalPrefix, 'bin')}:${process.env.PATH}`, GITHUB_ACTION_PATH: actionPath };
  const action = parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as { runs: { using: string; steps: Step[] } };
  expect(action.runs.using).toBe('composite');
  for (const step of action.runs.steps) {
    if (step.uses) expect(step.uses).toMatch(/^actions\/setup-node@v\d+$/);
    const expressions = { 'github.action_path': actionPath };
    if (step.run) bash(expand(step.run, expressions), expand(step['working-directory'] ?? actionPath, expressions), env, step.name ?? step.run);
  }
  return env;
}

/**
 * Runs a job of a workflow as a runner would, in `runner`: actions/checkout clones `repository` (into its
 * `path`), our action is the installation `installed` made from action.yml, artifacts stay in `runner`, and the
 * `run` steps run with bash in the job's working directory, `${{ … }}` replaced from `expressions`.
 */
function runJob(workflow: Workflow, name: string, context: { repository: string; runner: string; installed: NodeJS.ProcessEnv; expressions: Record<string, string> }): Record<string, string> {
  const job = workflow.jobs[name]!;
  mkdirSync(context.runner, { recursive: true });
  const output = `${context.runner}.github-output-${name}`; // outside the folder: checkout clones into it
  writeFileSync(output, '');
  const workingDirectory = job.defaults?.run?.['working-directory'] ?? workflow.defaults?.run?.['working-directory'] ?? '.';
  for (const step of job.steps) {
    if (step.uses?.startsWith('actions/checkout@')) {
      const target = join(context.runner, step.with?.path ?? '.');
      if (!existsSync(join(target, '.git'))) execFileSync('git', ['clone', '-q', context.repository, target]);
    } else if (step.uses?.startsWith('actions/upload-artifact@') || step.uses?.startsWith('actions/download-artifact@')) {
      continue; // the plan job and the apply job share the runner folder
    } else if (step.uses) {
      expect(step.uses).toBe(actionReference());
    } else if (step.run) {
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value, context.expressions)]));
      bash(expand(step.run, context.expressions), join(context.runner, workingDirectory), { ...context.installed, ...env, GITHUB_OUTPUT: output }, step.name ?? step.run);
    }
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

  it('puts engines in the manifest, and in every YAML file the modeline of the schemas it copies into the package', () => {
    const manifest = parse(readFileSync(join(demo, 'package.yaml'), 'utf8'));
    expect(manifest.spec).toMatchObject({ displayName: 'Demo requests', license: 'Apache-2.0', engines: { 'control-plane': '>=0.9,<0.11' } });
    for (const [file, schema] of [['package.yaml', 'object'], ['processes/demo.yaml', 'object'], ['agents/demo-process.yaml', 'object'], ['tests/demo.test.yaml', 'test']]) {
      const first = readFileSync(join(demo, file!), 'utf8').split('\n')[0]!;
      const target = first.replace('# yaml-language-server: $schema=', '');
      expect(join(demo, file!, '..', target)).toBe(join(demo, '.schema/v1', `${schema}.schema.json`));
      expect(readFileSync(join(demo, '.schema/v1', `${schema}.schema.json`), 'utf8')).toBe(readFileSync(join(ROOT, 'schema/v1', `${schema}.schema.json`), 'utf8'));
    }
  });

  it('writes the README sections and a workflow that checks, tests, plans on tags and applies behind an approval', async () => {
    expect((await runCli(['docs', 'package', '.', '--check'], { cwd: demo })).code).toBe(0);
    const workflow = parse(readFileSync(join(demo, '.github/workflows/demo.yml'), 'utf8')) as Workflow;
    const runs = (job: string): string => workflow.jobs[job]!.steps.map((step) => step.run ?? '').join('\n');
    expect(runs('check')).toContain('package-sdk check --format github');
    expect(runs('check')).toContain('package-sdk test');
    expect(workflow.jobs.check!.steps.map((step) => step.uses).filter(Boolean)).toEqual(['actions/checkout@v4', actionReference()]);
    expect(actionReference()).toMatch(/^[\w.-]+\/[\w.-]+@v\d+\.\d+\.\d+$/);
    expect((workflow.jobs.plan as Job & { if: string }).if).toContain('refs/tags/');
    expect(runs('plan')).toContain('package-sdk plan --install packages.yaml');
    expect(workflow.jobs.plan!.steps.some((step) => step.uses?.startsWith('actions/upload-artifact'))).toBe(true);
    expect((workflow.jobs.apply as Job & { environment: string }).environment).toBe('production');
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

describe('init in a repository of packages: the workflow at its root runs with the action of action.yml', () => {
  const scratch = scratchDir('package-sdk-init-repo-');
  const repository = join(scratch, 'repository');
  let installed: NodeJS.ProcessEnv;
  let core: RunningCli;
  let server: { url: string; token: string };
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

  beforeAll(async () => {
    mkdirSync(repository);
    git(repository, 'init', '-q', '-b', 'main');
    const init = await runCli(['init', 'packages/demo'], { cwd: repository });
    expect(init.code, init.stderr).toBe(0);
    git(repository, 'add', '.');
    git(repository, '-c', 'user.email=author@example.com', '-c', 'user.name=Author', 'commit', '-q', '-m', 'a package');
    installed = installAction(join(scratch, 'action'), join(scratch, 'global'));
    core = await startCli(['core', 'serve', '--data', join(scratch, 'core'), '--json']);
    server = JSON.parse(core.firstLine) as { url: string; token: string };
  }, 900_000);

  afterAll(async () => {
    await core?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('writes the workflow and the schemas at the repository root, nothing of them in the package', () => {
    expect(existsSync(join(repository, '.github/workflows/demo.yml'))).toBe(true);
    expect(existsSync(join(repository, 'packages/demo/.github'))).toBe(false);
    expect(readFileSync(join(repository, 'packages/demo/processes/demo.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../../../.schema/v1/object.schema.json');
    const workflow = parse(readFileSync(join(repository, '.github/workflows/demo.yml'), 'utf8')) as Workflow & { on: { pull_request: { paths: string[] } } };
    expect(workflow.defaults?.run?.['working-directory']).toBe('packages/demo');
    expect(workflow.on.pull_request.paths).toEqual(['packages/demo/**', '.github/workflows/demo.yml']);
  });

  it('the action installs package-sdk without the local core\'s native SQLite driver, which only the local core asks for', () => {
    const version = spawnSync('bash', ['-c', 'package-sdk --version'], { env: { ...process.env, ...installed }, encoding: 'utf8' });
    expect(version.stdout).toMatch(/^package-sdk\/\d+\.\d+\.\d+ /);
    expect(version.stderr).toBe('');
    expect(existsSync(join(installed.npm_config_prefix!, 'lib/node_modules/package-sdk/node_modules/better-sqlite3'))).toBe(false);
    const serve = spawnSync('bash', ['-c', `package-sdk core serve --data "${join(scratch, 'no-sqlite')}"`], { env: { ...process.env, ...installed, NO_COLOR: '1' }, encoding: 'utf8' });
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('error sqlite_missing: the local core keeps its state in SQLite, and better-sqlite3 is not installed beside package-sdk');
  });

  it('runs every step of the check job, then plans on a tag and applies exactly that plan by its hash', () => {
    const runner = join(scratch, 'runner');
    const workflow = parse(readFileSync(join(repository, '.github/workflows/demo.yml'), 'utf8')) as Workflow;
    const context = { repository, runner, installed, expressions: { 'vars.CP_SERVER': server.url, 'secrets.CP_TOKEN': server.token } };
    runJob(workflow, 'check', { ...context, runner: join(runner, 'check') });
    const planned = runJob(workflow, 'plan', { ...context, runner: join(runner, 'release') });
    expect(planned['plan-hash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.parse(readFileSync(join(runner, 'release/plan.json'), 'utf8')).planHash).toBe(planned['plan-hash']);
    const apply = { ...context, runner: join(runner, 'release'), expressions: { ...context.expressions, 'needs.plan.outputs.plan-hash': planned['plan-hash']! } };
    expect(() => runJob(workflow, 'apply', { ...apply, expressions: { ...apply.expressions, 'needs.plan.outputs.plan-hash': `sha256:${'0'.repeat(64)}` } })).toThrow(/plan/);
    runJob(workflow, 'apply', apply);
  });

  it('a fresh clone completes and explains fields in the editor through the modeline, with no package-sdk installed', async () => {
    const clone = join(scratch, 'clone');
    git(scratch, 'clone', '-q', repository, clone);
    const editor = await YamlEditor.start();
    try {
      const file = join(clone, 'packages/demo/processes/demo.yaml');
      const lines = readFileSync(file, 'utf8').split('\n');
      const opened = editor.openFile(file);
      expect(await opened.diagnostics).toEqual([]);
      const kind = lines.findIndex((line) => line.startsWith('kind:'));
      expect(await editor.hoverText(opened.uri, kind, 1)).not.toBe('');
      const spec = lines.findIndex((line) => line.startsWith('spec:'));
      const field = lines.findIndex((line, index) => index > spec && /^ {2}\w+:/.test(line));
      expect(await editor.completionLabels(opened.uri, field, 2)).toEqual(expect.arrayContaining(['description', 'version']));
    } finally {
      await editor.stop();
    }
  });
});
