/**
 * Shared by the schema suites: one ajv with the project's configuration, the documents they check (those of
 * our packages and of fixtures/schema) and the public schema each is checked against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { createAjv, schemaFile, type SchemaName } from '../../src/schema/ajv.js';

export const SCHEMA_DIR = fileURLToPath(new URL('../../schema/v1/', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../fixtures/schema/', import.meta.url));
const PROJECT_FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

const ajv = createAjv();

export interface Validation {
  valid: boolean;
  errors: ErrorObject[];
}

export function validate(schema: SchemaName, document: unknown): Validation {
  const check = ajv.getSchema(schemaFile(schema));
  if (!check) throw new Error(`schema/v1/${schemaFile(schema)} is missing`);
  const valid = check(document) as boolean;
  return { valid, errors: valid ? [] : [...(check.errors ?? [])] };
}

/** One line per error, for a readable failure message. */
export function describeErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '/'} ${e.keyword}: ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

/** ajv reports a failed if/then once more at the branching object: that is the trace, not the mistake. */
export function causes(errors: ErrorObject[]): ErrorObject[] {
  return errors.filter((e) => e.keyword !== 'if');
}

/** A document on disk and the public schema it is checked against. */
export interface SchemaDocument {
  /** How the suites name it: relative to the folder of documents it comes from. */
  name: string;
  path: string;
  schema: SchemaName;
  text: string;
  document: unknown;
}

export function readDocument(name: string, path: string, schemaOfIt: (document: unknown) => SchemaName): SchemaDocument {
  const text = readFileSync(path, 'utf8');
  const document: unknown = path.endsWith('.json') ? JSON.parse(text) : parse(text);
  return { name, path, schema: schemaOfIt(document), text, document };
}

/** Folders of a package that hold no object files. */
const NOT_OBJECTS = new Set(['i18n', 'schemas', '.layout']);

/** The object files, installations, package tests and JSON documents under `dir`, sorted. */
export function documentFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(yaml|json)$/.test(name))
    .filter((name) => !name.split('/').some((part) => NOT_OBJECTS.has(part)))
    .map((name) => join(dir, name))
    .sort();
}

/** The public schema of a document of a package, by its file name. */
export function schemaByName(path: string): SchemaName {
  const name = basename(path);
  if (name.endsWith('.test.yaml')) return 'test';
  if (name === 'lock.json') return 'lock';
  if (name === 'plan.json') return 'plan';
  return 'object';
}

/** The documents of our packages: the example installation with its package, and those of fixtures/packages. */
export function packageDocuments(): SchemaDocument[] {
  const paths = [...documentFiles(join(PROJECT_FIXTURES, 'example')), ...documentFiles(join(PROJECT_FIXTURES, 'packages'))];
  return paths.map((p) => readDocument(relative(PROJECT_FIXTURES, p), p, () => schemaByName(p)));
}

/** Documents of fixtures/schema that are not object files, by their directory. */
const FIXTURE_DOCUMENTS: Record<string, SchemaName> = {
  test: 'test',
  lock: 'lock',
  plan: 'plan',
  'knowledge-pack': 'knowledge-pack',
  'knowledge-template': 'knowledge-template',
};

export interface Fixture extends SchemaDocument {
  directory: string;
  /** From the first line of an invalid example: `# invalid: <instancePath or ""> <keyword>`. */
  expected?: { path: string; keyword: string };
}

/** fixtures/schema/<kind>/valid-* and invalid-*: object files carry the wrapper, documents go by directory. */
export function schemaFixtures(): Fixture[] {
  return readdirSync(FIXTURES).sort().flatMap((directory) =>
    readdirSync(join(FIXTURES, directory))
      .filter((f) => /\.(yaml|json)$/.test(f))
      .sort()
      .map((file) => {
        const isObject = (d: unknown) => typeof d === 'object' && d !== null && 'apiVersion' in d;
        const doc = readDocument(`${directory}/${file}`, join(FIXTURES, directory, file), (d) =>
          isObject(d) ? 'object' : (FIXTURE_DOCUMENTS[directory] ?? 'object'));
        const header = /^# invalid: (\S+) (\S+)$/.exec(doc.text.split('\n', 1)[0]!);
        const expected = header ? { path: header[1] === '""' ? '' : header[1]!, keyword: header[2]! } : undefined;
        return { ...doc, directory, ...(expected ? { expected } : {}) };
      }),
  );
}
