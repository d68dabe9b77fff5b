/**
 * `check` on the packages of the corpus: the claims example and the screens package check clean, the
 * process-language rules give no false finding on any real process, and the few findings real files do
 * deserve are reported exactly.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { processLanguageFindings } from '../check/rules/process-language-findings.js';
import { corpus } from './corpus.js';

const temp: string[] = [];
afterAll(() => temp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the manifest and ontology rules on the corpus', () => {
  it('the claims example declares default@1 and claims@1 and gets no finding of these rules', async () => {
    const { report } = await check({ cwd: corpus('claims'), install: 'packages.yaml' });
    expect([...report.errors, ...report.warnings]).toEqual([]);
  });

  it('acme-claims gets exactly knowledge_unknown for claims@1', async () => {
    const { report } = await check({ cwd: corpus('fixtures/manifest'), packages: ['acme-claims'] });
    const mine = [...report.errors, ...report.warnings].filter((f) => /^(knowledge|variable|requires|engines)_/.test(f.code));
    expect(mine.map((f) => [f.code, f.file, f.path])).toEqual([['knowledge_unknown', 'acme-claims/package.yaml', '/spec/knowledge/0']]);
  });
});

describe('the process-language rules on the processes of the corpus', () => {
  it.each([
    ['claims', { cwd: corpus('claims'), install: 'packages.yaml' }],
    ['settings', { cwd: corpus('fixtures/settings/packages/claims-intake') }],
    ['sla', { cwd: corpus('fixtures/sla/packages/sla-demo') }],
    ['handoff', { cwd: corpus('fixtures/handoff/packages/intake-demo') }],
    ['screens', { cwd: corpus('fixtures/screens/packages/invoice-payment') }],
    ['pyramid', { cwd: corpus('fixtures/pyramid'), package: ['packages/review-base', 'packages/review-flow'] }],
  ])('%s: no finding', async (_, options) => {
    expect(await processLanguageFindings(options)).toEqual([]);
  });

  it('acme-claims: subject and kind are read by the memory projection, and nothing writes them', async () => {
    expect(await processLanguageFindings({ cwd: corpus('fixtures/manifest/acme-claims') })).toEqual([
      'processes/claim.yaml:19:38 unwritten_data_field data.subject is read here, but no start.set, correlate.set, set, output.as or export.as writes it',
      'processes/claim.yaml:20:19 unwritten_data_field data.kind is read here, but no start.set, correlate.set, set, output.as or export.as writes it',
    ]);
  });

  it('purchase (in a package of its own): the level step writes approversNeeded, which spec.data does not declare', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'procdemo-'));
    temp.push(dir);
    mkdirSync(join(dir, 'processes'));
    copyFileSync(corpus('fixtures/process/purchase.process.yaml'), join(dir, 'processes/purchase.yaml'));
    writeFileSync(join(dir, 'package.yaml'), `apiVersion: taimen.ai/v1\nkind: Package\nkey: ${dir.split('/').at(-1)}\nspec: {version: 1.0.0, displayName: Purchase}\n`);
    expect(await processLanguageFindings({ cwd: dir })).toEqual([
      'processes/purchase.yaml:87:25 unknown_data_field data has no field approversNeeded',
    ]);
  });
});

describe('the screens package of the corpus', () => {
  // Its views are clean; its process names no identity, which the core's process check refuses
  // (process_identity_required): the one finding, as the core would give it.
  it('checks clean but for the identity its process lacks', async () => {
    const { report } = await check({ cwd: corpus('fixtures/screens') });
    expect(report.objects).toBe(5);
    expect([...report.errors, ...report.warnings].map((f) => `${f.file}:${f.line} ${f.code} ${f.path}`)).toEqual([
      'packages/invoice-payment/processes/invoice-payment.yaml:6 process_identity_required /spec/identity',
    ]);
  });
});
