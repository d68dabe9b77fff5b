/** Variables at plan time (compat-package-sdk-install §4.3): the env file, values, what is missing, forms. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import type { Workspace } from '../../src/model/workspace.js';
import { digest } from '../../src/json/digest.js';
import { readEnvironment, resolveVariables, substitute } from '../../src/plan/variables.js';

let dir: string;
let workspace: Workspace;

const MANIFEST = `apiVersion: taimen.ai/v1
kind: Package
key: desk
spec:
  version: 1.0.0
  variables:
    DESK_WORKSPACE: {kind: workspace, description: Workspace of the desk, example: 11111111-2222-4333-8444-555555555555}
    DESK_URL: {kind: url, description: API of the desk}
    DESK_LIMIT: {kind: integer, description: Limit, default: 5}
    DESK_NOTE: {kind: string, description: Note, required: false}
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plan-vars-'));
  const pkg = join(dir, 'desk');
  mkdirSync(join(pkg, 'roles'), { recursive: true });
  writeFileSync(join(pkg, 'package.yaml'), MANIFEST);
  writeFileSync(join(pkg, 'roles/agent.yaml'), 'apiVersion: taimen.ai/v1\nkind: Role\nkey: agent\nspec:\n  name: Agent at ${DESK_URL} ${UNDECLARED}\n');
  writeFileSync(join(dir, 'packages.yaml'), 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: i\nspec:\n  packages: [{key: desk, path: ./desk}]\n  knowledge:\n    - {workspace: "${KNOWLEDGE_WS}", packs: ["default@1"]}\n');
  workspace = await loadTargets({ install: join(dir, 'packages.yaml'), cwd: dir });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readEnvironment', () => {
  it('reads NAME=value lines, strips quotes, skips comments; the process environment wins', async () => {
    const file = join(dir, 'test.env');
    writeFileSync(file, '# comment\n A = "x=1" \nB=\'quoted\'\nnot a pair\n\nC=plain\n');
    expect(await readEnvironment(file, { C: 'from process' })).toEqual({ A: 'x=1', B: 'quoted', C: 'from process' });
  });

  it('an --env file that does not exist is a usage error', async () => {
    await expect(readEnvironment(join(dir, 'missing.env'), {})).rejects.toMatchObject({ code: 'env_unreadable', exitCode: 2 });
  });
});

describe('resolveVariables', () => {
  const env = { DESK_WORKSPACE: '11111111-2222-4333-8444-555555555555', DESK_URL: 'https://desk.example.com', UNDECLARED: 'u', KNOWLEDGE_WS: 'w' };

  it('hashes every declared and used name with its value, defaults and optional blanks included', () => {
    const variables = resolveVariables(workspace.packages, workspace.installation, env);
    const hashed = { packages: { desk: { DESK_LIMIT: '5', DESK_NOTE: '', DESK_URL: env.DESK_URL, DESK_WORKSPACE: env.DESK_WORKSPACE, UNDECLARED: 'u' } }, installation: { KNOWLEDGE_WS: 'w' } };
    expect(variables.hashed).toEqual(hashed);
    expect(variables.variablesHash).toBe(digest(hashed));
    expect(variables.valuesOf.get('desk')?.DESK_LIMIT).toBe('5');
  });

  it('lists every missing name with its description, undeclared ones and installation ones apart', () => {
    let error: { code?: string; problems?: string[] } = {};
    try {
      resolveVariables(workspace.packages, workspace.installation, {});
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error.code).toBe('variables_missing');
    expect(error.problems).toEqual([
      'variable DESK_URL is not set — package desk: API of the desk (url)',
      'variable DESK_WORKSPACE is not set — package desk: Workspace of the desk (workspace; example: 11111111-2222-4333-8444-555555555555)',
      'environment variable UNDECLARED is not set (required by package desk)',
      'variable KNOWLEDGE_WS is not set — installation: workspace of ontology enablement',
    ]);
  });

  it('checks the form of a value by its kind', () => {
    expect(() => resolveVariables(workspace.packages, workspace.installation, { ...env, DESK_URL: 'desk.example.com', DESK_WORKSPACE: 'nope', DESK_LIMIT: '5x' }))
      .toThrow(/variable DESK_LIMIT of package desk: expected an integer\n {2}variable DESK_URL of package desk: expected an absolute URL http\(s\):\/\/…\n {2}variable DESK_WORKSPACE of package desk: expected a UUID \(workspace of the core\)/);
  });
});

describe('substitute', () => {
  it('replaces ${NAME} and leaves other dollar forms alone; an unknown name refuses', () => {
    expect(substitute('a ${X} $.task.id! ${lower}', { X: '1' }, 'f')).toBe('a 1 $.task.id! ${lower}');
    expect(() => substitute('${Y}', {}, 'desk/roles/agent.yaml')).toThrow('desk/roles/agent.yaml: variable Y is not set');
  });
});
