/**
 * `workflow` writes the CI workflow of a repository from what it holds, and `--check` says when a package or an
 * installation was added since.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeWorkflow } from '../../src/author/workflow.js';
import { actionReference, githubWorkflow, packageWorkflowPath, repositoryWorkflow, WORKFLOW_PATH } from '../../src/author/ci.js';
import { ROOT } from '../support/cli.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const copy = (base: string, files = {}): string => {
  const dir = overlay(base, files);
  dirs.push(dir);
  return dir;
};

describe('workflow', () => {
  it('a repository: checks its packages and installations, plans and applies each installation on a tag', async () => {
    const dir = copy(join(FIXTURES, 'example'));
    const result = await writeWorkflow({ cwd: dir });
    expect(result).toEqual({ file: WORKFLOW_PATH, fresh: false, written: true, packages: ['field-maintenance'], installations: ['packages.yaml'] });
    const workflow = parse(readFileSync(join(dir, WORKFLOW_PATH), 'utf8')) as { jobs: Record<string, { steps: { run?: string }[]; strategy?: { matrix: { install: string[] } }; environment?: string }> };
    expect(workflow.jobs.check!.steps.map((step) => step.run).filter(Boolean)).toEqual([
      'package-sdk check --format github', 'package-sdk test', 'package-sdk check --install packages.yaml --format github',
    ]);
    expect(workflow.jobs.plan!.strategy!.matrix.install).toEqual(['packages.yaml']);
    expect(workflow.jobs.apply!.environment).toBe('production');
  });

  it('--check: current after writing, stale once an installation is added, and writes nothing', async () => {
    const dir = copy(join(FIXTURES, 'example'));
    await writeWorkflow({ cwd: dir });
    expect((await writeWorkflow({ cwd: dir, check: true })).fresh).toBe(true);
    const before = readFileSync(join(dir, WORKFLOW_PATH), 'utf8');
    writeFileSync(join(dir, 'staging.yaml'), 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: staging\nspec:\n  packages: [field-maintenance]\n');
    const stale = await writeWorkflow({ cwd: dir, check: true });
    expect(stale).toMatchObject({ fresh: false, written: false, installations: ['packages.yaml', 'staging.yaml'] });
    expect(readFileSync(join(dir, WORKFLOW_PATH), 'utf8')).toBe(before);
  });

  it('a package on its own gets the workflow init writes', async () => {
    const dir = copy(join(FIXTURES, 'edit/packages'));
    await writeWorkflow({ cwd: join(dir, 'intake') });
    expect(readFileSync(join(dir, 'intake', packageWorkflowPath('intake')), 'utf8')).toBe(githubWorkflow({ key: 'intake', path: '' }));
  });

  it('a package in a repository gets its workflow at the repository root, with the path to the package', async () => {
    const dir = copy(join(FIXTURES, 'edit/packages'));
    mkdirSync(join(dir, '.git'));
    await writeWorkflow({ cwd: join(dir, 'intake') });
    expect(existsSync(join(dir, 'intake/.github'))).toBe(false);
    const text = readFileSync(join(dir, packageWorkflowPath('intake')), 'utf8');
    expect(text).toBe(githubWorkflow({ key: 'intake', path: 'intake' }));
    const workflow = parse(text) as { defaults: { run: { 'working-directory': string } }; jobs: { check: { steps: { uses?: string }[] } } };
    expect(workflow.defaults.run['working-directory']).toBe('intake');
    expect(workflow.jobs.check.steps.map((step) => step.uses).filter(Boolean)).toEqual(['actions/checkout@v4', actionReference()]);
  });

  it('the workflows install package-sdk with the action of its repository, pinned by the tag of this version', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(actionReference()).toMatch(new RegExp(`^[\\w.-]+/[\\w.-]+@v${manifest.version.replaceAll('.', '\\.')}$`));
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { runs: { using: string } };
    expect(action.runs.using).toBe('composite');
    for (const text of [githubWorkflow({ key: 'intake', path: '' }), repositoryWorkflow({ packages: ['intake'], installations: ['packages.yaml'] })]) {
      expect(text).not.toContain('npm install');
      expect(text).toContain(`uses: ${actionReference()}`);
    }
  });
});
