/**
 * The code catalog against the corpus: whatever `check` says of the packages and documents the formats'
 * authors wrote, each code it gives is one the catalog (check --list-rules, docs/findings.md) explains.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeCatalog } from '../../src/check/catalog.js';
import { check, type CheckOptions } from '../../src/check/index.js';
import { corpus } from './corpus.js';

const CATALOG = new Set(codeCatalog().map((info) => info.code));

/** A folder's entries whose names pass `keep`, as paths relative to that folder. */
const entriesOf = (folder: string, keep: (name: string) => boolean) => readdirSync(corpus(folder)).filter(keep).sort();

/** What the corpus README lists, checked as a user would check it. */
const TARGETS: readonly { name: string; options: CheckOptions }[] = [
  { name: 'claims/packages.yaml', options: { cwd: corpus('claims'), install: 'packages.yaml' } },
  ...['handoff', 'pyramid', 'screens', 'settings', 'sla'].map((set) => ({ name: `fixtures/${set}/packages/*`, options: { cwd: corpus('fixtures', set) } })),
  { name: 'fixtures/connector/sample-feed', options: { cwd: corpus('fixtures/connector'), paths: ['sample-feed'] } },
  { name: 'fixtures/manifest/*', options: { cwd: corpus('fixtures/manifest'), paths: entriesOf('fixtures/manifest', () => true) } },
  { name: 'fixtures/agents/*.yaml', options: { cwd: corpus('fixtures/agents'), paths: entriesOf('fixtures/agents', (name) => name.endsWith('.yaml')) } },
  { name: 'fixtures/process/*.yaml', options: { cwd: corpus('fixtures/process'), paths: entriesOf('fixtures/process', (name) => name.endsWith('.yaml')) } },
  // its packages are elsewhere or in git without a lock: the codes of loading and of the lock
  { name: 'fixtures/schema/installation-sources.yaml as --install', options: { cwd: corpus('fixtures/schema'), install: 'installation-sources.yaml' } },
  // each document of fixtures/schema on its own, as the README has it
  ...entriesOf('fixtures/schema', (name) => /\.(ya?ml|json)$/.test(name)).map((file) => ({
    name: `fixtures/schema/${file}`,
    options: { cwd: corpus('fixtures/schema'), paths: [file] },
  })),
];

async function codesOf(options: CheckOptions): Promise<string[]> {
  const { report } = await check(options);
  return [...report.errors, ...report.warnings, ...report.suppressed].map((finding) => finding.code);
}

describe('the code catalog explains every code checking the corpus gives', () => {
  it.each(TARGETS)('$name', async ({ options }) => {
    expect((await codesOf(options)).filter((code) => !CATALOG.has(code))).toEqual([]);
  });

  it('among them knowledge_unknown of acme-claims (correct, says the corpus), lock_required of its unlocked git source, one for each bad-*.yaml', async () => {
    expect(await codesOf({ cwd: corpus('fixtures/manifest'), paths: ['acme-base', 'acme-claims'] })).toContain('knowledge_unknown');
    expect(await codesOf({ cwd: corpus('fixtures/schema'), install: 'installation-sources.yaml' })).toContain('lock_required');
    for (const file of entriesOf('fixtures/schema', (name) => name.startsWith('bad-'))) {
      expect((await codesOf({ cwd: corpus('fixtures/schema'), paths: [file] })).length, file).toBeGreaterThan(0);
    }
  });
});
