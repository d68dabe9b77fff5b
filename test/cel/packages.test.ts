// Every expression of the processes, views and components of our packages type-checks without a finding.
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processExpressionFindings, screenExpressionFindings } from './package-expressions.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
const EXAMPLE = join(FIXTURES, 'example/packages/field-maintenance');

const PROCESS_FILES = [
  join(EXAMPLE, 'processes/work-order.yaml'),
  // the parts of the language the example does not need: correlate, recall, a quorum, compensation, suspension
  join(FIXTURES, 'packages/venue-booking/processes/booking.yaml'),
];

describe('processes of our packages', () => {
  it.each(PROCESS_FILES.map((file) => relative(FIXTURES, file)))('%s checks clean', (file) => {
    const { checked, findings } = processExpressionFindings(join(FIXTURES, file));
    expect(checked).toBeGreaterThan(20);
    expect(findings).toEqual([]);
  });
});

describe('screens of our packages', () => {
  it('the views and components of the example check clean', () => {
    const { checked, findings } = screenExpressionFindings(EXAMPLE);
    expect(checked).toBeGreaterThan(10);
    expect(findings).toEqual([]);
  });
});
