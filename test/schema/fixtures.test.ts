/**
 * fixtures/schema/<kind>/: for every kind and document a valid example that must pass, and invalid ones
 * whose first line names where the mistake is and which keyword catches it:
 *   # invalid: /spec/stages/0/steps/1 not
 * The error must be there, and no error may land outside that place: one mistake, one place.
 */
import { describe, expect, it } from 'vitest';
import { causes, describeErrors, schemaFixtures, validate } from './schemas.js';

/** Every kind of object file and every document has a directory with both kinds of example. */
const EXPECTED_DIRECTORIES = [
  'agent', 'artifact-type', 'calendar', 'capability', 'component', 'connection-type', 'installation',
  'knowledge-pack', 'knowledge-template', 'lock', 'notification-rule', 'package', 'plan', 'process',
  'project-template', 'role', 'skill', 'task-type', 'test', 'view', 'work-rule', 'workspace-type',
];

const fixtures = schemaFixtures();
const directories = [...new Set(fixtures.map((f) => f.directory))];
const valid = fixtures.filter((f) => f.name.split('/')[1]!.startsWith('valid-'));
const invalid = fixtures.filter((f) => f.name.split('/')[1]!.startsWith('invalid-'));
const screens = fixtures.filter((f) => ['View', 'Component'].includes((f.document as { kind?: unknown }).kind as string));

describe('schema fixtures', () => {
  it('cover every kind and document with a valid and an invalid example', () => {
    expect(directories).toEqual(EXPECTED_DIRECTORIES);
    for (const d of directories) {
      expect(valid.some((f) => f.directory === d), `${d} has a valid example`).toBe(true);
      expect(invalid.some((f) => f.directory === d), `${d} has an invalid example`).toBe(true);
    }
    expect(valid.length + invalid.length).toBe(fixtures.length);
  });

  it('name the place of the mistake in every invalid example', () => {
    expect(invalid.filter((f) => !f.expected).map((f) => f.name)).toEqual([]);
  });

  it.each(valid.map((f) => [f.name, f] as const))('%s is valid', (_, fixture) => {
    const { errors } = validate(fixture.schema, fixture.document);
    expect(describeErrors(errors)).toBe('');
  });

  it.each(invalid.map((f) => [f.name, f] as const))('%s fails at the place it names', (_, fixture) => {
    const { valid: ok, errors } = validate(fixture.schema, fixture.document);
    expect(ok).toBe(false);
    const { path, keyword } = fixture.expected!;
    const found = causes(errors);
    expect(found.some((e) => e.instancePath === path && e.keyword === keyword), describeErrors(found)).toBe(true);
    const elsewhere = found.filter((e) => e.instancePath !== path && !e.instancePath.startsWith(`${path}/`));
    expect(describeErrors(elsewhere)).toBe('');
  });

  it.each(screens.map((f) => [f.name, f] as const))('%s gets the same verdict from view.schema.json', (_, fixture) => {
    expect(validate('view', fixture.document).valid).toBe(validate('object', fixture.document).valid);
  });
});
