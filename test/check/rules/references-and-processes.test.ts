/**
 * The parts of the references, process, connection-type and working-copy rules that the fixture table cannot
 * show one by one: media-type matching, token URL shapes, catalog ambiguities, process elements — and that the
 * rules never throw on a spec the schema would have refused.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRules } from '../../../src/check/rule.js';
import { tokenUrlProblem } from '../../../src/check/domain/connection-type.js';
import { processCalendars, processElementRules } from '../../../src/check/rules/process-statics.js';
import { mediaTypeCovers, references } from '../../../src/check/rules/references.js';
import { renames, retire } from '../../../src/check/rules/renames.js';
import { catalogConflicts, workingCopies } from '../../../src/check/rules/working-copies.js';
import { loadTargets } from '../../../src/load/targets.js';

describe('mediaTypeCovers', () => {
  it.each([
    ['*/*', 'image/png', true],
    ['text/*', 'text/markdown', true],
    ['text/*', 'TEXT/CSV; charset=utf-8', true],
    ['application/pdf', 'application/pdf', true],
    ['application/pdf', 'application/json', false],
    ['text/markdown', 'text/*', false],
    ['text/*', 'image/png', false],
  ])('%s covers %s: %s', (wide, narrow, covers) => expect(mediaTypeCovers(wide, narrow)).toBe(covers));
});

describe('tokenUrlProblem', () => {
  it.each([
    'https://{account}.zendesk.example/oauth/token',
    'https://auth.example.com/token?x={account}',
    'https://a.{account}.example.com/token',
  ])('accepts %s', (url) => expect(tokenUrlProblem(url)).toBeUndefined());

  it.each([
    ['http://auth.example.com/token', 'https://'],
    ['https://{tenant}.example.com/token', 'one placeholder'],
    ['https://{account.example.com/token', 'braces'],
    ['https://user@auth.example.com/token', 'user info'],
    ['https://auth.example.com:8443/token', 'port'],
    ['https://[::1]/token', 'port'],
    ['https://x{account}.example.com/token', 'whole labels'],
    ['https://{account}.Example.com/token', 'DNS labels'],
    ['https://localhost/token', 'external DNS name'],
    ['https://192.168.0.1/token', 'external DNS name'],
    ['https://auth.-bad.com/token', 'external DNS name'],
  ])('refuses %s', (url, why) => expect(tokenUrlProblem(url)).toContain(why));
});

describe('catalogConflicts', () => {
  const problems = (repositories: Record<string, unknown>) => catalogConflicts(repositories).map((c) => `${c.entry}: ${c.problem}`);

  it('finds nothing in a catalog of distinct names, addresses and side-by-side directories', () => {
    expect(problems({
      a: { url: 'https://git.example.com/a', aliases: ['alpha'] },
      b: { url: 'https://git.example.com/b', directory: 'services/b' },
      c: { url: 'https://git.example.com/c', directory: 'services/c', aliases: ['с-кириллицей'] },
    })).toEqual([]);
  });

  it('reports a directory named after another key once, whichever comes first', () => {
    expect(problems({ a: { url: 'u1', directory: 'b' }, b: { url: 'u2' } })).toEqual(["a: directory 'b' is the key of repository 'b', which is ambiguous"]);
    expect(problems({ b: { url: 'u2' }, a: { url: 'u1', directory: 'b' } })).toEqual(["a: it is cloned to 'b', as repository 'b' is"]);
  });

  it('compares addresses without case, trailing slash and .git', () => {
    expect(problems({ a: { url: 'https://git.example.com/A.git' }, b: { url: 'https://GIT.example.com/a/' } })).toEqual([
      "b: url 'https://GIT.example.com/a/' is the address of repository 'a' too",
    ]);
  });

  it('finds a clone placed inside another, in either order', () => {
    expect(problems({ a: { url: 'u1', directory: 'x/y' }, b: { url: 'u2', directory: 'x' } })).toHaveLength(1);
    expect(problems({ a: { url: 'u1', directory: 'x' }, b: { url: 'u2', directory: 'x/y' } })).toHaveLength(1);
  });
});

describe('the rules on specs the schema would refuse', () => {
  const root = mkdtempSync(join(tmpdir(), 'odd-specs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const object = (kind: string, key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: ${kind}\nkey: ${key}\nspec:\n${spec}`;

  it('report what they can and never throw', async () => {
    write('odd/package.yaml', object('Package', 'odd', '  version: 1\n  renames: [3, {kind: 5}, {kind: Process, from: [], to: {}}]\n'));
    write('odd/processes/p.yaml', object('Process', 'p', [
      '  owner: nobody',
      '  identity: [agent]',
      '  calendar: 7',
      '  due: {workhours: x, warnBefore: 3}',
      '  decisions: {id: t}',
      '  stages: [{id: s, steps: {id: a}}, {id: s2, steps: [{id: b, decide: 5, compensate: [1, null], human: {taskType: [], due: []}}]}]',
      '  migrations: {to: 1}',
      '',
    ].join('\n')));
    write('odd/task-types/t.yaml', object('TaskType', 't', [
      '  execution: {skill: [], version: {}}',
      '  approvalSchema: {gates: {default: {outcomes: {approved: {ensureWork: 1}}}}}',
      '  completionSchema: {onComplete: {actions: [null, {ensureWork: {type: 5, requestApproval: []}}, {invokeSkill: {onSuccess: 3}}]}}',
      '  acceptance: [{spec: 3}, 4]',
      '  artifactSchema: {inputs: {}, outputs: [{type: 5, mediaTypes: bad}]}',
      '  fieldSchema: {properties: [], items: [{properties: {apiToken: 1}}]}',
      '',
    ].join('\n')));
    write('odd/agents/a.yaml', object('Agent', 'a', '  identity: {roles: {}}\n  work: []\n  connections: 5\n  workingCopy: {superproject: 1, repositories: {x: 5, y: {aliases: 3, url: []}}}\n'));
    write('odd/rules/r.yaml', object('WorkRule', 'r', '  trigger: 5\n  action: {taskTypes: x, fields: {assignee: 3, approverRole: []}}\n'));
    write('odd/connection-types/c.yaml', object('ConnectionType', 'c', '  oauth2: {tokenUrlTemplate: 5}\n  accountField: []\n  settingsSchema: {properties: {token: 1}}\n'));
    write('odd/workspace-types/w.yaml', object('WorkspaceType', 'w', '  allowedChildTypes: {}\n'));
    write('packages.yaml', object('Installation', 'i', '  packages: [{key: odd, path: ./odd}]\n  retire: {TaskType: task, Agent: [1, a], Process: {}}\n'));

    const workspace = await loadTargets({ cwd: root, install: 'packages.yaml' });
    const rules = [references, processElementRules, processCalendars, renames, retire, workingCopies];
    const findings = runRules(workspace, rules, new Set());
    // What still reads as meant: a due in workhours without a calendar, no owner, and a retired agent that the
    // package declares (the core's checks of each kind are tried on odd specs in core-statics.test.ts).
    expect(findings.map((f) => `${f.code} ${f.path}`).sort()).toEqual([
      'process_owner_missing /spec/owner',
      'retire_declared /spec/retire/Agent/1',
      'sla_calendar_missing /spec/due/workhours',
    ]);
  });
});
