import { describe, expect, it } from 'vitest';
import { readPackageSource } from '../../src/server/package-source.js';

/**
 * How the local core reads a package's files, as the real core does (compat-core-packages §2, §3): which files
 * are objects, tests or neither, the strict YAML, the envelope with the core's kinds, `data` references,
 * duplicates, tests, and the `${…}` workspaceId.
 */
const MANIFEST = { path: 'package.yaml', content: 'apiVersion: taimen.ai/v1\nkind: Package\nkey: desk\nspec: {version: 0.1.0}\n' };
const object = (kind: string, key: string, spec = '{displayName: X}') => `apiVersion: taimen.ai/v1\nkind: ${kind}\nkey: ${key}\nspec: ${spec}\n`;
const read = (files: { path: string; content: string }[], workspaceId: string | null = null) => readPackageSource([MANIFEST, ...files], workspaceId);
const found = (problems: { code: string; file: string | null; path: string; line: number | null }[]) => problems.map((p) => `${p.code} ${p.file}${p.path} @${p.line}`);

describe('which files are read as what', () => {
  it('reads .yaml and .yml objects in path order, and leaves schemas/, .layout/, JSON and other tests/ files alone', async () => {
    const source = await read([
      { path: 'task-types/b.yml', content: object('TaskType', 'b') },
      { path: 'task-types/a.yaml', content: object('TaskType', 'a') },
      { path: 'schemas/broken.yaml', content: 'key: [' },
      { path: '.layout/x.yaml', content: 'key: [' },
      { path: 'data.json', content: '{' },
      { path: 'tests/fixtures/data.yaml', content: 'key: [' },
      { path: 'README.md', content: '# desk' },
    ]);
    expect(source.problems).toEqual([]);
    expect(source.objects.map((o) => `${o.kind}/${o.key} ${o.file}`)).toEqual(['TaskType/a task-types/a.yaml', 'TaskType/b task-types/b.yml']);
    expect(source).toMatchObject({ key: 'desk', version: '0.1.0' });
  });

  it('reads files in code-point order, as the core sorts their paths, and reports their problems in it', async () => {
    // U+FF02 sorts before U+1F600 by code points, after it by UTF-16 units.
    const source = await read([
      { path: 'task-types/\u{1F600}.yaml', content: object('TaskType', 'smile') },
      { path: 'task-types/\uFF02.yaml', content: object('TaskType', 'quote') },
      { path: 'rules/\u{1F600}.yaml', content: 'key: [' },
      { path: 'rules/\uFF02.yaml', content: 'key: [' },
    ]);
    expect(source.objects.map((o) => o.key)).toEqual(['quote', 'smile']);
    expect(found(source.problems)).toEqual(['invalid_yaml rules/\uFF02.yaml @1', 'invalid_yaml rules/\u{1F600}.yaml @1']);
  });

  it('reads a dictionary only for its YAML', async () => {
    const source = await read([{ path: 'i18n/en.yaml', content: 'greeting: [' }]);
    expect(found(source.problems)).toEqual(['invalid_yaml i18n/en.yaml @1']);
  });

  it('needs a manifest of kind Package in package.yaml', async () => {
    const source = await readPackageSource([{ path: 'package.yaml', content: object('TaskType', 'desk') }], null);
    expect(found(source.problems)).toEqual(['invalid_document package.yaml/kind @2', 'package_manifest_missing package.yaml @null']);
    expect(source.key).toBeNull();
  });
});

describe('YAML and the envelope', () => {
  it('reads YAML 1.2, one document per file', async () => {
    const source = await read([
      { path: 'rules/a.yaml', content: object('WorkRule', 'a', '{trigger: {on: yes}, action: {kind: noop}, description: 2026-01-01, condition: {eq: [012, 1]}}') },
      { path: 'rules/two.yaml', content: `${object('WorkRule', 'two')}---\n${object('WorkRule', 'three')}` },
    ]);
    expect(source.objects[0]!.spec).toEqual({ trigger: { on: 'yes' }, action: { kind: 'noop' }, description: '2026-01-01', condition: { eq: [12, 1] } });
    expect(found(source.problems)).toEqual(['invalid_yaml rules/two.yaml @5']);
  });

  it('knows the core\'s kinds only: a KnowledgePack is unknown_kind', async () => {
    const source = await read([{ path: 'knowledge-packs/claims.yaml', content: object('KnowledgePack', 'claims', '{name: claims, version: 1}') }]);
    expect(source.problems).toEqual([expect.objectContaining({ code: 'unknown_kind', file: 'knowledge-packs/claims.yaml', path: '/kind', line: 2, severity: 'error' })]);
    expect(source.objects).toEqual([]);
  });

  it.each([
    ['a list', '- a\n', ''],
    ['another apiVersion', object('TaskType', 'a').replace('taimen.ai/v1', 'taimen.ai/v2'), '/apiVersion'],
    ['no key', 'apiVersion: taimen.ai/v1\nkind: TaskType\nspec: {}\n', '/key'],
    ['a process key with capitals', object('Process', 'Desk', '{version: 1}'), '/key'],
    ['a spec that is a list', 'apiVersion: x/v1\nkind: Calendar\nkey: office\nspec: []\n', '/spec'],
  ])('refuses %s as invalid_document', async (_, content, path) => {
    const source = await read([{ path: 'objects/a.yaml', content }]);
    expect(source.problems.map((p) => [p.code, p.path])).toEqual([['invalid_document', path]]);
  });
});

describe('references, duplicates and install variables', () => {
  const process = (spec: string) => object('Process', 'desk-request', spec);

  it('inlines a process data schema from a file of the package, and refuses one outside it', async () => {
    const source = await read([
      { path: 'processes/desk-request.yaml', content: process('{version: 1, data: {$ref: ../schemas/request.json}}') },
      { path: 'schemas/request.json', content: '{"type": "object", "properties": {"id": {"type": "string"}}}' },
      { path: 'processes/other.yaml', content: object('Process', 'other', '{version: 1, data: {$ref: ../../outside.json}}') },
      { path: 'processes/missing.yaml', content: object('Process', 'missing', '{version: 1, data: {$ref: none.yaml}}') },
    ]);
    expect(source.objects.find((o) => o.key === 'desk-request')!.spec.data).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
    expect(found(source.problems)).toEqual(['unresolved_data_ref processes/missing.yaml/spec/data/$ref @4', 'unresolved_data_ref processes/other.yaml/spec/data/$ref @4']);
  });

  it('keeps the first of a Kind/key in path order; a skill is a key and a version', async () => {
    const source = await read([
      { path: 'b/review.yaml', content: object('TaskType', 'review') },
      { path: 'a/review.yaml', content: object('TaskType', 'review') },
      { path: 'skills/v1.yaml', content: object('Skill', 'classify', '{version: "1"}') },
      { path: 'skills/v2.yaml', content: object('Skill', 'classify', '{version: "2"}') },
    ]);
    expect(source.problems).toEqual([expect.objectContaining({ code: 'duplicate_object', file: 'b/review.yaml', path: '/key', message: 'TaskType/review is also defined in a/review.yaml' })]);
    expect(source.objects.map((o) => o.file)).toEqual(['a/review.yaml', 'skills/v1.yaml', 'skills/v2.yaml']);
  });

  it('puts the request\'s workspace where a process or rule writes ${…} as its workspaceId', async () => {
    const files = [
      { path: 'processes/desk-request.yaml', content: process('{version: 1, workspaceId: "${DESK_WORKSPACE}"}') },
      { path: 'rules/reopened.yaml', content: object('WorkRule', 'reopened', '{workspaceId: "${DESK_WORKSPACE}", trigger: {}, action: {}}') },
      { path: 'rules/literal.yaml', content: object('WorkRule', 'literal', '{workspaceId: "ws-${DESK_WORKSPACE}", trigger: {}, action: {}}') },
    ];
    const given = await read(files, 'ws-1');
    expect(given.objects.map((o) => o.spec.workspaceId)).toEqual(['ws-1', 'ws-${DESK_WORKSPACE}', 'ws-1']);
    expect(given.problems).toEqual([]);
    const none = await read(files);
    expect(none.objects.map((o) => [o.key, o.spec.workspaceId, o.unresolved ?? false])).toEqual([
      ['desk-request', undefined, false], ['literal', 'ws-${DESK_WORKSPACE}', false], ['reopened', '${DESK_WORKSPACE}', true],
    ]);
    expect(none.problems).toEqual([expect.objectContaining({ code: 'unresolved_install_variable', path: '/spec/workspaceId', hint: 'pass workspaceId with the plan and the apply' })]);
  });
});

describe('tests', () => {
  const rules = { path: 'rules/reopened.yaml', content: object('WorkRule', 'reopened', '{trigger: {}, action: {}}') };

  it('validates test files, finds their subjects, and warns of process-test fields in a rule test', async () => {
    const source = await read([
      rules,
      { path: 'tests/good.test.yaml', content: 'subject: rule\nrule: reopened\nname: good\nversion: 2\nsteps: [{expect: {result: matched}}]\n' },
      { path: 'tests/gone.test.yml', content: 'subject: rule\nrule: nope\nname: gone\nsteps: [{expect: {result: matched}}]\n' },
      { path: 'tests/bad.test.yaml', content: 'subject: rule\nname: bad\nsteps: 7\n' },
    ]);
    expect(source.tests.map((t) => `${t.file} ${t.subject}:${t.target}`)).toEqual(['tests/good.test.yaml rule:reopened']);
    expect([...source.testFiles]).toEqual(['tests/bad.test.yaml', 'tests/gone.test.yml', 'tests/good.test.yaml']);
    expect(source.problems.map((p) => `${p.severity} ${p.code} ${p.file}${p.path}: ${p.message}`)).toEqual([
      "error invalid_test tests/bad.test.yaml: missing required field 'rule'",
      "error invalid_test tests/bad.test.yaml/steps: 'steps' must be a list, not the integer 7",
      'error unknown_test_rule tests/gone.test.yml/rule: the test is about WorkRule nope, which the package does not have',
      'warning test_field_ignored tests/good.test.yaml/version: version is for process tests: a rule test ignores it',
    ]);
  });
});
