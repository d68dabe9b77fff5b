/**
 * The human form of a plan as a reviewer reads it: an update shows its nested difference as Terraform does —
 * each changed field with its value before and after, long values cut in the middle — and the totals of an
 * apply speak of one change in the singular.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/plan/apply.js';
import type { PlanDocument } from '../../src/plan/document.js';
import { paintFor } from '../../src/report/paint.js';
import { renderApplied, renderPlan } from '../../src/report/plan.js';

const plain = paintFor({ isTTY: false });

function documentWith(fields: { path: string; before?: unknown; after?: unknown; owner?: 'package' | 'console' }[]): PlanDocument {
  return {
    format: 'package-sdk.plan/v1', server: 'https://cp.example.com', engines: { 'control-plane': '0.10.0' }, createdAt: '2026-09-30T10:00:00+00:00',
    install: 'packages.yaml', lockHash: `sha256:${'1'.repeat(64)}`, variablesHash: `sha256:${'2'.repeat(64)}`, overwriteConsole: false,
    sections: [
      { kind: 'catalog', changes: [] },
      { kind: 'core', package: 'fleet', planHash: `sha256:${'3'.repeat(64)}`, replayLimit: 50,
        plan: { planHash: `sha256:${'3'.repeat(64)}`, changes: [{ kind: 'Process', key: 'work-order', action: 'update', fields }] } },
      { kind: 'knowledge', register: [], enable: [] },
      { kind: 'notification-rules', changes: [] },
      { kind: 'retire', items: [] },
    ],
    planHash: `sha256:${'4'.repeat(64)}`,
  };
}

describe('the plan a reviewer reads', () => {
  it('an update shows each changed field, nested ones by their path, with before and after', () => {
    const text = renderPlan(documentWith([
      { path: '/spec/stages', owner: 'package',
        before: [{ key: 'intake', timeout: 'PT1H' }, { key: 'repair' }], after: [{ key: 'intake', timeout: 'PT4H' }, { key: 'repair', role: 'tech' }] },
      { path: '/spec/description', before: 'Repairs', after: undefined },
      { path: '/spec/displayName', before: undefined, after: 'Work order' },
    ]), plain);
    expect(text).toContain([
      '  ~ Process/work-order: update /spec/stages, /spec/description, /spec/displayName',
      '      ~ /spec/stages/0/timeout: "PT1H" → "PT4H"',
      '      + /spec/stages/1/role: "tech"',
      '      - /spec/description: "Repairs"',
      '      + /spec/displayName: "Work order"',
    ].join('\n'));
  });

  it('a long value is cut in the middle, a field edited in the console is not shown as a package change', () => {
    const long = `start ${'x'.repeat(500)} end`;
    const text = renderPlan(documentWith([
      { path: '/spec/instructions', before: 'short', after: long },
      { path: '/spec/displayName', before: 'A', after: 'B', owner: 'console' },
    ]), plain);
    const line = text.split('\n').find((candidate) => candidate.startsWith('      ~ /spec/instructions'))!;
    expect(line).toMatch(/^ {6}~ \/spec\/instructions: "short" → "start x+…x+ end"$/);
    expect(line.length).toBeLessThan(120);
    expect(text).not.toContain('~ /spec/displayName');
  });

  it('one change written is singular, several plural', () => {
    const result = (count: number): ApplyResult => ({
      planHash: `sha256:${'4'.repeat(64)}`, server: 'https://cp.example.com', core: [], requests: 1,
      applied: Array.from({ length: count }, (_, i) => ({ section: 'catalog' as const, kind: 'Role', key: `r${i}`, operation: 'create' })),
    });
    expect(renderApplied(result(1), false)).toMatch(/: 1 change written$/);
    expect(renderApplied(result(2), false)).toMatch(/: 2 changes written$/);
    expect(renderApplied(result(0), false)).toMatch(/: nothing to write$/);
  });
});
