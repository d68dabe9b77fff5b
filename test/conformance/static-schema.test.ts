/**
 * The packages written by the authors of the formats are the evidence of what real files look like: every
 * valid document of the corpus passes its public schema, and each bad-*.yaml fails for the reason its name
 * promises — at that place, with nothing else reported.
 */
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { causes, describeErrors, validate } from '../schema/schemas.js';
import { badCorpusDocuments, corpusDocuments } from './static-support.js';

const documents = corpusDocuments();
const bad = badCorpusDocuments();

const missing = (name: string) => (e: ErrorObject) =>
  e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === name;

/** What each bad-*.yaml of fixtures/schema promises by its name: the place, and the error that says it. */
const PROMISES: Record<string, { path: string; says: (e: ErrorObject) => boolean }> = {
  'bad-variable-secret.yaml': { path: '/spec/variables', says: (e) => /secret|TOKEN/.test(JSON.stringify(e.params)) },
  'bad-git-source-without-ref.yaml': { path: '/spec/packages/0', says: missing('ref') },
  'bad-agent-image.yaml': { path: '/spec/executor/image', says: (e) => e.keyword === 'pattern' },
  'bad-rule-test-without-rule.yaml': { path: '', says: missing('rule') },
  'bad-process-test-without-process.yaml': { path: '', says: missing('process') },
};

describe('corpus documents', () => {
  it('are all found', () => {
    expect(documents.length).toBeGreaterThan(60);
    expect(documents.map((d) => d.name)).toEqual(expect.arrayContaining([
      'claims/claims/knowledge-packs/claims.yaml',
      'claims/packages.yaml',
      'fixtures/process/purchase.process.yaml',
      'fixtures/process/purchase.test.yaml',
      'fixtures/schema/lock.json',
      'fixtures/schema/plan.json',
      'fixtures/screens/packages/invoice-payment/views/invoice-payment-list.yaml',
    ]));
  });

  it.each(documents.map((d) => [d.name, d] as const))('%s is valid', (_, d) => {
    expect(describeErrors(validate(d.schema, d.document).errors)).toBe('');
  });
});

describe('bad corpus documents', () => {
  it('each have a promise', () => {
    expect(bad.map((d) => d.name)).toEqual(Object.keys(PROMISES).sort());
  });

  it.each(bad.map((d) => [d.name, d] as const))('%s fails for the reason its name says', (name, d) => {
    const promise = PROMISES[name]!;
    const { valid, errors } = validate(d.schema, d.document);
    expect(valid).toBe(false);
    const found = causes(errors);
    expect(found.some(promise.says), describeErrors(found)).toBe(true);
    const elsewhere = found.filter((e) => e.instancePath !== promise.path && !e.instancePath.startsWith(`${promise.path}/`));
    expect(describeErrors(elsewhere)).toBe('');
  });
});
