/** What makes a core section unfit to save: errors (or problems without a severity) and required migrations. */
import { describe, expect, it } from 'vitest';
import { blockingProblems } from '../../src/plan/core-section.js';
import type { CoreSection } from '../../src/plan/document.js';

const section = (plan: Partial<CoreSection['plan']>): CoreSection =>
  ({ kind: 'core', package: 'claims', planHash: `sha256:${'1'.repeat(64)}`, replayLimit: 50, plan: { planHash: `sha256:${'1'.repeat(64)}`, ...plan } });

describe('blockingProblems', () => {
  it('keeps warnings out, errors and severity-less problems in, with file and line', () => {
    expect(blockingProblems(section({ problems: [
      { code: 'unused_field', severity: 'warning', message: 'w' },
      { code: 'yaml_invalid', severity: 'error', message: 'bad', file: 'processes/claim.yaml', line: 3 },
      { code: 'unknown', message: 'no severity' },
    ] }))).toEqual(['claims: processes/claim.yaml:3: yaml_invalid: bad', 'claims: unknown: no severity']);
  });

  it('refuses instances that need a migration, not those pinned or unaffected', () => {
    expect(blockingProblems(section({ processes: [{ key: 'claim', fromVersion: 1, toVersion: 2, instances: [
      { version: 1, open: 4, fate: 'migrate', migrationRequired: true }, { version: 1, open: 2, fate: 'pin', migrationRequired: false },
    ] }] }))).toEqual(['claims: migration_required: Process/claim v1 has 4 open instances that need a migration']);
    expect(blockingProblems(section({ problems: [], processes: [] }))).toEqual([]);
  });
});
