/**
 * Our packages are the evidence of what real files look like: every document of the example and of
 * fixtures/packages passes its public schema. (What a document that must fail looks like is fixtures/schema.)
 */
import { describe, expect, it } from 'vitest';
import { describeErrors, packageDocuments, validate } from './schemas.js';

const documents = packageDocuments();

describe('package documents', () => {
  it('are all found, of every schema a package uses', () => {
    expect(documents.length).toBeGreaterThan(40);
    expect(new Set(documents.map((d) => d.schema))).toEqual(new Set(['object', 'test']));
    expect(documents.map((d) => d.name)).toEqual(expect.arrayContaining([
      'example/packages.yaml',
      'example/packages/field-maintenance/tests/parts-request-approved.test.yaml',
      'example/packages/field-maintenance/views/work-order-list.yaml',
      'packages/venue-booking/processes/booking.yaml',
      'packages/venue-booking/knowledge-packs/venues.yaml',
    ]));
  });

  it.each(documents.map((d) => [d.name, d] as const))('%s is valid', (_, d) => {
    expect(describeErrors(validate(d.schema, d.document).errors)).toBe('');
  });
});
