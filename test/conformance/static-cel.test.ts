// Every expression of the processes, views and components of the corpus type-checks without a finding.
import { describe, expect, it } from 'vitest';
import { processExpressionFindings, screenExpressionFindings } from '../cel/package-expressions.js';
import { corpus } from './corpus.js';

const PROCESS_FILES = [
  'claims/claims/processes/claim.yaml',
  'fixtures/process/purchase.process.yaml',
  'fixtures/manifest/acme-claims/processes/claim.yaml',
  'fixtures/settings/packages/claims-intake/processes/claim.yaml',
  'fixtures/handoff/packages/intake-demo/processes/request-intake.yaml',
  'fixtures/pyramid/packages/review-flow/processes/request-intake.yaml',
  'fixtures/sla/packages/sla-demo/processes/request-sla.yaml',
  'fixtures/screens/packages/invoice-payment/processes/invoice-payment.yaml',
];

describe('corpus processes', () => {
  it.each(PROCESS_FILES)('%s checks clean', (file) => {
    const { checked, findings } = processExpressionFindings(corpus(file));
    expect(checked).toBeGreaterThan(2);
    expect(findings).toEqual([]);
  });
});

describe('corpus screens', () => {
  it('fixtures/screens/packages/invoice-payment: views and components check clean', () => {
    const { checked, findings } = screenExpressionFindings(corpus('fixtures/screens/packages/invoice-payment'));
    expect(checked).toBeGreaterThan(4);
    expect(findings).toEqual([]);
  });
});
