/**
 * The parts of the settings rules the fixture table cannot show one by one: how a read resolves against the
 * declaration, which places of a work rule read settings and what each place needs, schema errors under
 * spec.settings that only stage 1 sees, and that the rules never throw on a declaration the schema refuses.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../../src/check/index.js';
import { runRules } from '../../../src/check/rule.js';
import { settingsDeclaration, settingsForm, settingsLabels } from '../../../src/check/rules/settings.js';
import { settingsReads, settingsReadsOf } from '../../../src/check/rules/settings-reads.js';
import { settingsFieldAt } from '../../../src/check/settings-schema.js';
import { loadTargets } from '../../../src/load/targets.js';
import type { PackageObject } from '../../../src/model/package.js';

const root = mkdtempSync(join(tmpdir(), 'settings-rules-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'case-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const manifest = (key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${key}\nspec:\n  version: 0.1.0\n  displayName: Demo\n${spec}`;

describe('settingsFieldAt', async () => {
  const dir = write({
    'packages/desk/package.yaml': manifest('desk', [
      '  settings:',
      '    schema:',
      '      type: object',
      '      properties:',
      '        holdDays: {type: integer, minimum: 1, default: 3}',
      '        channel: {type: string, enum: [sms, email], default: sms}',
      '        labels: {type: array, items: {type: string}, default: []}',
      '        reception:',
      '          type: object',
      '          properties:',
      '            desk: {type: string, default: front}',
      '',
    ].join('\n')),
  });
  const workspace = await loadTargets({ cwd: dir });
  const pkg = workspace.packages[0]!;

  it.each([
    [[], 'object'],
    [['holdDays'], 'integer'],
    [['reception', 'desk'], 'string'],
    [['labels'], 'array'],
    [['labels', '0'], 'string'],
  ])('settings.%j is %s', (path, type) => {
    expect(settingsFieldAt(pkg, path)?.type).toBe(type);
  });

  it.each([[['holdDay']], [['reception', 'counter']], [['channel', 'length']], [['labels', 'first']], [['__proto__']]])('settings.%j is not declared', (path) => {
    expect(settingsFieldAt(pkg, path)).toBeUndefined();
  });
});

describe('settingsReadsOf: the places of a work rule that read settings', () => {
  const rule = (spec: Record<string, unknown>) => ({ spec, document: {} }) as unknown as PackageObject;
  const reads = (spec: Record<string, unknown>) => settingsReadsOf(rule(spec)).map(({ path, need, place }) => [path.join('.'), need, place.pointer]);

  it('reads every operand where it stands', () => {
    const condition = {
      or: [
        { not: { ge: [{ var: 'settings.limit' }, 3] } },
        { in: [{ var: ['settings.channel', 'email'] }, { var: 'settings.channels' }] },
        { exists: 'settings.intake.inbox' },
        { var: 'settings.enabled' },
        { eq: [{ var: 'payload.amount' }, 'settings.notARead'] },
      ],
    };
    expect(reads({ condition })).toEqual([
      ['limit', 'comparable', '/spec/condition/or/0/not/ge/0/var'],
      ['channel', 'scalar', '/spec/condition/or/1/in/0/var/0'],
      ['channels', 'member', '/spec/condition/or/1/in/1/var'],
      ['intake.inbox', 'any', '/spec/condition/or/2/exists'],
      ['enabled', 'any', '/spec/condition/or/3/var'],
    ]);
  });

  it('reads where, forEach and the templates of the action and the interpretation', () => {
    const spec = {
      interpretation: { skill: 'classify@1', inputs: { hints: '{{ settings.tags }}' } },
      action: {
        where: { eq: [{ var: 'item.kind' }, { var: 'settings.kind' }] },
        forEach: '{{settings.queues}}',
        taskType: '{{item.type}}',
        fields: { title: 'Claim {{payload.id}} for {{settings.team.name}}' },
      },
    };
    expect(reads(spec)).toEqual([
      ['kind', 'equatable', '/spec/action/where/eq/1/var'],
      ['queues', 'forEach', '/spec/action/forEach'],
      ['tags', 'any', '/spec/interpretation/inputs/hints'],
      ['team.name', 'text', '/spec/action/fields/title'],
    ]);
  });

  it('finds nothing in a rule the schema would refuse', () => {
    expect(reads({ condition: 5, action: [] })).toEqual([]);
    expect(reads({ condition: { and: 'x', gt: null }, action: { forEach: 7, fields: 'x' } })).toEqual([]);
  });
});

describe('schema errors under spec.settings', () => {
  it('come in the settings codes, never as schema_violation, also when only stage 1 sees them', async () => {
    const dir = write({
      'packages/demo/package.yaml': manifest('demo', [
        '  locales: [en]',
        '  settings:',
        '    schema:',
        '      type: object',
        '      properties:',
        '        limit: {type: integer, default: 5}',
        '    uischema:',
        '      type: VerticalLayout',
        '      elements:',
        '        - type: Control',
        '          scope: "#/properties/limit"',
        '          rule: {effect: HIDE, condition: {scope: "#/properties/limit", schema: {const: {a: 1}}}}',
        '',
      ].join('\n')),
      'packages/demo/i18n/en.yaml': 'demo.title: Demo\ndemo.settings.limit: Limit\n',
    });
    const { report } = await check({ cwd: dir });
    expect(report.errors.map((f) => [f.code, f.path])).toEqual([
      ['settings_uischema_unsupported', '/spec/settings/uischema/elements/0/rule/condition/schema/const'],
    ]);
    expect(report.errors[0]!.message).toContain('outside the format schema');
  });

  it('are schema_violation like any other when the manifest has other schema errors too', async () => {
    const dir = write({ 'packages/demo/package.yaml': 'apiVersion: taimen.ai/v1\nkind: Package\nkey: demo\nspec:\n  version: 0.1.0\n  settings: {schema: {type: array}}\n' });
    const { report } = await check({ cwd: dir });
    expect(new Set(report.errors.map((f) => f.code))).toEqual(new Set(['schema_violation']));
    expect(report.errors.map((f) => f.path)).toContain('/spec/settings/schema/type');
  });
});

describe('the settings rules', () => {
  it('report what they can and never throw', async () => {
    const dir = write({
      'packages/odd/package.yaml': manifest('odd', [
        '  locales: en',
        '  settings:',
        '    schema:',
        '      type: object',
        '      required: [a, a, 5]',
        '      properties:',
        '        a: 5',
        '        b: {type: [string]}',
        '        c: {type: array, items: 3}',
        '        d: {type: string, enum: 3, pattern: "(", minLength: -2, format: 1, x-ref: [], default: {}}',
        '        e: {type: object, properties: {f: {type: array}}}',
        '        g: {type: integer, default: 1.5}',
        '        h: {type: integer, minimum: x}',
        '    uischema: {type: Group, label: 3, elements: [5, {type: Control, scope: 3, rule: []}, {type: Label}, {type: HorizontalLayout, elements: {}}]}',
        '',
      ].join('\n')),
      'packages/odd/i18n/en.yaml': '- not a mapping\n',
      'packages/odd/rules/r.yaml': 'apiVersion: taimen.ai/v1\nkind: WorkRule\nkey: r\nspec:\n  condition: {gt: {var: settings.a.b}}\n  action: {forEach: {var: [settings.c]}, fields: [5, "{{settings.zz}}"]}\n',
    });
    const workspace = await loadTargets({ cwd: dir });
    const findings = runRules(workspace, [settingsDeclaration, settingsForm, settingsLabels, settingsReads], new Set());
    const codes = new Set(findings.map((f) => f.code));
    expect([...codes].sort()).toEqual(['settings_default_invalid', 'settings_ref_unknown', 'settings_schema_unsupported', 'settings_uischema_unsupported']);
    for (const finding of findings) expect(finding.line).toBeGreaterThan(0);
  });
});
