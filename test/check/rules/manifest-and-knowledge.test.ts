/**
 * The parts of the manifest and ontology rules the fixture table cannot show one by one: which values of a
 * process are ontology terms, our packages (clean, and short of the pack they declare), and that the rules
 * never throw on a manifest or a KnowledgePack the schema refuses.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../../src/check/index.js';
import { runRules } from '../../../src/check/rule.js';
import { installationKnowledge, knowledgeDeclared, knowledgePacks, knowledgeUses } from '../../../src/check/rules/knowledge.js';
import { engines, requires, variables } from '../../../src/check/rules/manifest.js';
import { loadTargets } from '../../../src/load/targets.js';
import type { PackageObject } from '../../../src/model/package.js';
import { overlay } from '../../support/overlay.js';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures');

const root = mkdtempSync(join(tmpdir(), 'manifest-rules-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('knowledgeUses: the terms a process uses', () => {
  const uses = (spec: Record<string, unknown>) => {
    const text = JSON.stringify(spec);
    const document = { text, includes: (needle: string) => text.includes(needle) };
    return knowledgeUses({ spec, document } as unknown as PackageObject).map(({ term, name, pointer }) => `${term} ${name} ${pointer}`);
  };

  it('takes kind, kinds, relation and via under memory, recall, remember and context', () => {
    const spec = {
      memory: { case: { kind: 'claim', key: 'data.id' }, facts: { kind: 'data.kind' }, entities: [{ kind: 'customer', key: 'data.c', rel: 'filed_by' }] },
      stages: [
        {
          id: 's',
          steps: [
            { id: 'r', recall: { anchors: [{ case: true }, { kind: 'customer', key: 'k', via: 'filed_by' }], traverse: [{ relation: 'resolved_by' }], kinds: ['outcome'], where: [{ attr: 'kind' }] } },
            { id: 'w', remember: { entity: { kind: 'decision', key: 'k', links: [{ rel: 'won', kind: 'case', key: 'k' }] } } },
            { id: 'h', human: { taskType: 't', context: { anchors: [{ kind: 'customer', key: 'k' }] } } },
          ],
        },
      ],
    };
    expect(uses(spec)).toEqual([
      'kind claim /spec/memory/case/kind',
      'kind customer /spec/memory/entities/0/kind',
      'kind customer /spec/stages/0/steps/0/recall/anchors/1/kind',
      'relation filed_by /spec/stages/0/steps/0/recall/anchors/1/via',
      'relation resolved_by /spec/stages/0/steps/0/recall/traverse/0/relation',
      'kind outcome /spec/stages/0/steps/0/recall/kinds/0',
      'kind decision /spec/stages/0/steps/1/remember/entity/kind',
      'kind case /spec/stages/0/steps/1/remember/entity/links/0/kind',
      'kind customer /spec/stages/0/steps/2/human/context/anchors/0/kind',
    ]);
  });

  it('counts the default case kind, and nothing outside the knowledge sections, in data or in the retrospective', () => {
    const spec = {
      data: { properties: { memory: { properties: { kind: { type: 'string' } } } } },
      memory: { case: { key: 'data.id' } },
      retrospective: { taskType: 't', appliesTo: ['legal_entity'] },
      stages: [{ id: 's', steps: [{ id: 'c', call: { skill: 'x@1', input: { kind: "'a'" } } }] }],
    };
    expect(uses(spec)).toEqual(['kind case /spec/memory/case']);
  });

  it('skips templates and installation variables', () => {
    expect(uses({ memory: { case: { kind: '${CASE_KIND}', key: 'k' }, entities: [{ kind: '{{x}}' }] } })).toEqual([]);
  });
});

describe('our packages', () => {
  it.each([
    ['the example declares default@1 and equipment@1', { cwd: join(FIXTURES, 'example'), install: 'packages.yaml' }],
    ['venue-booking declares default@1 and venues@1', { cwd: join(FIXTURES, 'packages/venue-booking') }],
  ])('%s and gets no finding at all', async (_, options) => {
    const { report } = await check(options);
    expect([...report.errors, ...report.warnings]).toEqual([]);
  });

  it('venue-booking without its KnowledgePack gets exactly knowledge_unknown for venues@1', async () => {
    const dir = overlay('packages', { 'venue-booking/knowledge-packs/venues.yaml': null });
    const { report } = await check({ cwd: dir, packages: ['venue-booking'] });
    rmSync(dir, { recursive: true, force: true });
    expect([...report.errors, ...report.warnings].map((f) => [f.code, f.file, f.path])).toEqual([['knowledge_unknown', 'venue-booking/package.yaml', '/spec/knowledge/1']]);
  });
});

describe('the manifest and ontology rules', () => {
  it('report what they can and never throw', async () => {
    const files: Record<string, string> = {
      'packages.yaml': 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: i\nspec:\n  packages: [odd]\n  knowledge: [5, {packs: 3}, {packs: [7, "${X}", "nope@1"]}]\n',
      'packages/odd/package.yaml': [
        'apiVersion: taimen.ai/v1',
        'kind: Package',
        'key: odd',
        'spec:',
        '  version: [1]',
        '  requires: [base, {package: 5, version: 1}, 7, {package: ghost, version: "^1"}]',
        '  engines: {control-plane: 0.9, other: ""}',
        '  knowledge: [3, "gone@1"]',
        '  variables: {A: 5, B: {kind: [url], default: 5, required: true}}',
        '',
      ].join('\n'),
      'packages/odd/knowledge-packs/k.yaml': 'apiVersion: taimen.ai/v1\nkind: KnowledgePack\nkey: k\nspec:\n  name: [k]\n  extends: [5, "${X}"]\n  kinds: 3\n',
      'packages/odd/processes/p.yaml': 'apiVersion: taimen.ai/v1\nkind: Process\nkey: p\nspec:\n  memory: {case: 5, entities: {kind: [x]}}\n  stages: {recall: {kinds: x, relation: 5}}\n  description: "${A} ${C}"\n',
      'packages/base/package.yaml': 'apiVersion: taimen.ai/v1\nkind: Package\nkey: base\nspec: {version: 1.0}\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const workspace = await loadTargets({ cwd: root, install: 'packages.yaml' });
    const findings = runRules(workspace, [variables, requires, engines, knowledgePacks, knowledgeDeclared, installationKnowledge], new Set());
    expect([...new Set(findings.map((f) => f.code))].sort()).toEqual([
      'engines_invalid',
      'knowledge_pack_outside_installation',
      'knowledge_unknown',
      'requires_version_invalid',
      'variable_required_with_default',
      'variable_undeclared',
      'variable_unused',
    ]);
    for (const finding of findings) expect(finding.line).toBeGreaterThan(0);
  });
});
