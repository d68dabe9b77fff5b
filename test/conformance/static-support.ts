/**
 * What the static conformance suites share: the documents of the corpus with the public schema each is
 * checked against, and the reference page of the schema with its comparison to ours.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { DocDefinition } from '../../src/docs/schema-model.js';
import { documentFiles, readDocument, schemaByName, type SchemaDocument } from '../schema/schemas.js';
import { corpus, CORPUS, REFERENCE } from './corpus.js';

/** The valid documents of the corpus: object files, installations, package tests, the lock and the plan. */
export function corpusDocuments(): SchemaDocument[] {
  const paths = [
    ...documentFiles(corpus('claims/claims')),
    corpus('claims/packages.yaml'),
    ...documentFiles(corpus('fixtures')).filter((p) => !basename(p).startsWith('bad-')),
  ].filter((p) => !p.endsWith('control-plane-openapi-packages-record.json'));
  return paths.map((p) => readDocument(relative(CORPUS, p), p, () => schemaByName(p)));
}

/** The corpus documents that must fail, each for the reason its name says (`bad-<kind>-test-…` is a package test). */
export function badCorpusDocuments(): SchemaDocument[] {
  const dir = corpus('fixtures/schema');
  return readdirSync(dir)
    .filter((n) => n.startsWith('bad-'))
    .sort()
    .map((n) => readDocument(n, join(dir, n), () => (n.includes('-test-') ? 'test' : schemaByName(n))));
}

export interface ReferenceDefinition {
  name: string;
  section: string;
  description: string;
  fields: { name: string; type: string; required: boolean; description: string }[];
  value: string | null;
  includes: string[];
  exactlyOneOf: string[] | null;
  conditions: [string, string][];
}

/** The machine-readable reference page of the package schema. */
export const SCHEMA_REFERENCE = join(REFERENCE, 'package-schema-reference.json');

/** The definitions of the reference page, as its authors wrote them. */
export function referenceDefinitions(): ReferenceDefinition[] {
  return (JSON.parse(readFileSync(SCHEMA_REFERENCE, 'utf8')) as { definitions: ReferenceDefinition[] }).definitions;
}

export interface Difference {
  definition: string;
  what: string;
  expected: unknown;
  actual: unknown;
}

const normal = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Every difference of `generated` from `reference`, and how many reference fields were compared. */
export function compareDefinitions(reference: readonly ReferenceDefinition[], generated: readonly DocDefinition[]): { differences: Difference[]; fields: number } {
  const byName = new Map(generated.map((definition) => [definition.name, definition]));
  const differences: Difference[] = [];
  let fields = 0;
  for (const expected of reference) {
    const actual = byName.get(expected.name);
    if (!actual) {
      differences.push({ definition: expected.name, what: 'missing', expected: expected.name, actual: undefined });
      continue;
    }
    const description = normal(actual.description.join(' '));
    if (description !== normal(expected.description)) differences.push({ definition: expected.name, what: 'description', expected: expected.description, actual: description });
    if (actual.section !== expected.section) differences.push({ definition: expected.name, what: 'section', expected: expected.section, actual: actual.section });
    if ((actual.value ?? '') !== (expected.value ?? '').replace(/\.$/, '')) differences.push({ definition: expected.name, what: 'value', expected: expected.value, actual: actual.value });
    for (const field of expected.fields) {
      fields += 1;
      const mine = actual.fields.find((candidate) => candidate.name === field.name);
      if (!mine) {
        differences.push({ definition: expected.name, what: `field ${field.name}`, expected: field, actual: undefined });
        continue;
      }
      for (const key of ['type', 'required', 'description'] as const) {
        const a = key === 'description' ? normal(mine[key]) : mine[key];
        const e = key === 'description' ? normal(field[key]) : field[key];
        if (a !== e) differences.push({ definition: expected.name, what: `${field.name}.${key}`, expected: e, actual: a });
      }
    }
  }
  return { differences, fields };
}
