/**
 * fixtures/schema/<kind>/: for every kind and document a valid example that must pass, and invalid ones
 * whose first line names where the mistake is and which keyword catches it:
 *   # invalid: /spec/stages/0/steps/1 not
 * The error must be there, and no error may land outside that place: one mistake, one place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { SchemaName } from '../../src/check/ajv.js';
import { causes, describeErrors, schemaOf, validate } from './schemas.js';

const ROOT = fileURLToPath(new URL('../../fixtures/schema/', import.meta.url));

/** Documents that are not object files, by their directory. */
const DOCUMENTS: Record<string, SchemaName> = {
  test: 'test',
  lock: 'lock',
  plan: 'plan',
  'knowledge-pack': 'knowledge-pack',
  'knowledge-template': 'knowledge-template',
};

/** Every kind of object file and every document has a directory with both kinds of example. */
const EXPECTED_DIRECTORIES = [
  'agent', 'artifact-type', 'calendar', 'capability', 'component', 'connection-type', 'installation',
  'knowledge-pack', 'knowledge-template', 'lock', 'notification-rule', 'package', 'plan', 'process',
  'project-template', 'role', 'skill', 'task-type', 'test', 'view', 'work-rule', 'workspace-type',
];

interface Fixture {
  name: string;
  schema: SchemaName;
  document: unknown;
  expected?: { path: string; keyword: string };
}

function loadFixture(directory: string, file: string): Fixture {
  const text = readFileSync(join(ROOT, directory, file), 'utf8');
  const document: unknown = parse(text);
  const schema = schemaOf(document, DOCUMENTS[directory] ?? 'object');
  const header = /^# invalid: (\S+) (\S+)$/m.exec(text.split('\n', 1)[0]!);
  const expected = header ? { path: header[1] === '""' ? '' : header[1]!, keyword: header[2]! } : undefined;
  return { name: `${directory}/${file}`, schema, document, expected };
}

const directories = readdirSync(ROOT).sort();
const fixtures = directories.flatMap((d) =>
  readdirSync(join(ROOT, d)).filter((f) => /\.(yaml|json)$/.test(f)).sort().map((f) => loadFixture(d, f)),
);
const valid = fixtures.filter((f) => f.name.split('/')[1]!.startsWith('valid-'));
const invalid = fixtures.filter((f) => f.name.split('/')[1]!.startsWith('invalid-'));
const screens = fixtures.filter((f) => ['View', 'Component'].includes((f.document as { kind?: unknown }).kind as string));

describe('schema fixtures', () => {
  it('cover every kind and document with a valid and an invalid example', () => {
    expect(directories).toEqual(EXPECTED_DIRECTORIES);
    for (const d of directories) {
      expect(valid.some((f) => f.name.startsWith(`${d}/`)), `${d} has a valid example`).toBe(true);
      expect(invalid.some((f) => f.name.startsWith(`${d}/`)), `${d} has an invalid example`).toBe(true);
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

  it.each(screens.map((f) => [f.name, f] as const))(
    '%s gets the same verdict from view.schema.json',
    (_, fixture) => {
      expect(validate('view', fixture.document).valid).toBe(validate('object', fixture.document).valid);
    },
  );
});
