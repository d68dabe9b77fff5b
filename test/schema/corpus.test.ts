/**
 * The packages written by the authors of the formats (../shared/corpus) are the evidence of what real files
 * look like: every valid document of it passes its public schema, and each bad-*.yaml fails for the reason
 * its name promises — at that place, with nothing else reported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { SchemaName } from '../../src/check/ajv.js';
import { causes, describeErrors, validate } from './schemas.js';

const CORPUS = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));

/** Folders of a package that hold no object files. */
const NOT_OBJECTS = new Set(['i18n', 'schemas', '.layout']);

function documentFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(yaml|json)$/.test(name))
    .filter((name) => !name.split('/').some((part) => NOT_OBJECTS.has(part)))
    .map((name) => join(dir, name))
    .sort();
}

function schemaOfFile(path: string): SchemaName {
  const name = basename(path);
  if (name.endsWith('.test.yaml')) return 'test';
  if (name === 'lock.json') return 'lock';
  if (name === 'plan.json') return 'plan';
  return 'object';
}

function read(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  return path.endsWith('.json') ? JSON.parse(text) : parse(text);
}

const shown = (path: string): string => relative(CORPUS, path);

const files = [
  ...documentFiles(join(CORPUS, 'claims/claims')),
  join(CORPUS, 'claims/packages.yaml'),
  ...documentFiles(join(CORPUS, 'fixtures')).filter((p) => !basename(p).startsWith('bad-')),
].filter((p) => !p.endsWith('control-plane-openapi-packages-record.json'));

interface Promised {
  schema: SchemaName;
  path: string;
  says: (e: ErrorObject) => boolean;
}

/** What each bad-*.yaml of fixtures/schema promises by its name. */
const BAD: Record<string, Promised> = {
  'bad-variable-secret.yaml': {
    schema: 'object',
    path: '/spec/variables',
    says: (e) => JSON.stringify(e.params).includes('secret') || JSON.stringify(e.params).includes('TOKEN'),
  },
  'bad-git-source-without-ref.yaml': {
    schema: 'object',
    path: '/spec/packages/0',
    says: (e) => e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'ref',
  },
  'bad-agent-image.yaml': {
    schema: 'object',
    path: '/spec/executor/image',
    says: (e) => e.instancePath === '/spec/executor/image' && e.keyword === 'pattern',
  },
  'bad-rule-test-without-rule.yaml': {
    schema: 'test',
    path: '',
    says: (e) => e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'rule',
  },
  'bad-process-test-without-process.yaml': {
    schema: 'test',
    path: '',
    says: (e) => e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'process',
  },
};

describe('corpus documents', () => {
  it('are all found', () => {
    expect(files.length).toBeGreaterThan(60);
    expect(files.map(shown)).toEqual(expect.arrayContaining([
      'claims/claims/knowledge-packs/claims.yaml',
      'claims/packages.yaml',
      'fixtures/process/purchase.process.yaml',
      'fixtures/schema/lock.json',
      'fixtures/schema/plan.json',
      'fixtures/screens/packages/invoice-payment/views/invoice-payment-list.yaml',
    ]));
  });

  it.each(files.map((p) => [shown(p), p] as const))('%s is valid', (_, path) => {
    const { errors } = validate(schemaOfFile(path), read(path));
    expect(describeErrors(errors)).toBe('');
  });
});

describe('bad corpus documents', () => {
  const bad = readdirSync(join(CORPUS, 'fixtures/schema')).filter((n) => n.startsWith('bad-')).sort();

  it('each have a promise', () => {
    expect(bad).toEqual(Object.keys(BAD).sort());
  });

  it.each(bad)('%s fails for the reason its name says', (name) => {
    const promise = BAD[name]!;
    const { valid, errors } = validate(promise.schema, read(join(CORPUS, 'fixtures/schema', name)));
    expect(valid).toBe(false);
    const found = causes(errors);
    expect(found.some(promise.says), describeErrors(found)).toBe(true);
    const elsewhere = found.filter((e) => e.instancePath !== promise.path && !e.instancePath.startsWith(`${promise.path}/`));
    expect(describeErrors(elsewhere)).toBe('');
  });
});
