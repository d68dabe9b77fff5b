/**
 * The bundled example (fixtures/example) is what `npm start` runs and what the README shows, so it must be
 * a clean package: every file loads under the package YAML rules, every object and test validates against
 * the public schema its modeline names, and together the objects use every kind a package may hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { createAjv, SCHEMA_DIR, schemaFile, type SchemaName } from '../../src/schema/ajv.js';
import { loadPackage } from '../../src/load/package.js';
import { loadSourceFile } from '../../src/load/source.js';
import type { Finding } from '../../src/model/finding.js';
import { OBJECT_KINDS } from '../../src/model/kinds.js';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/example/', import.meta.url));
const PACKAGE = join(EXAMPLE, 'packages/field-maintenance');

/** What a file of the example is, by where it lies in its package. */
type Role = 'object' | 'test' | 'dictionary' | 'data-schema';

interface ExampleFile {
  path: string;
  role: Role;
  value: unknown;
  loadFindings: Finding[];
}

const ajv = createAjv();

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => join(dir, name))
    .sort();
}

function roleOf(path: string): Role {
  const [top] = relative(PACKAGE, path).split('/');
  if (top === 'tests') return 'test';
  if (top === 'i18n') return 'dictionary';
  if (top === 'schemas') return 'data-schema';
  return 'object';
}

async function loadExample(): Promise<ExampleFile[]> {
  const files: ExampleFile[] = [];
  for (const path of yamlFilesUnder(EXAMPLE)) {
    const { document, findings } = await loadSourceFile(path, relative(EXAMPLE, path));
    files.push({ path, role: roleOf(path), value: document?.value, loadFindings: findings });
  }
  return files;
}

const files = await loadExample();
const ofRole = (role: Role): ExampleFile[] => files.filter((f) => f.role === role);
const shown = (f: ExampleFile): string => relative(EXAMPLE, f.path);

function schemaViolations(schema: SchemaName, value: unknown): string[] {
  const validate = ajv.getSchema(schemaFile(schema));
  if (!validate) throw new Error(`schema/v1/${schemaFile(schema)} is missing`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}

/** The schema file a modeline `# yaml-language-server: $schema=<relative path>` on the first line names. */
function modelineTarget(path: string): string | undefined {
  const first = readFileSync(path, 'utf8').split('\n', 1)[0]!;
  const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
  return match ? resolve(dirname(path), match[1]!) : undefined;
}

describe('the bundled example', () => {
  it('loads under the package YAML rules', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => f.loadFindings)).toEqual([]);
  });

  it.each(ofRole('object').map((f) => [shown(f), f] as const))('%s is valid against object.schema.json', (_, file) => {
    expect(modelineTarget(file.path), 'modeline').toBe(join(SCHEMA_DIR, schemaFile('object')));
    expect(schemaViolations('object', file.value)).toEqual([]);
  });

  it.each(ofRole('test').map((f) => [shown(f), f] as const))('%s is valid against test.schema.json', (_, file) => {
    expect(modelineTarget(file.path), 'modeline').toBe(join(SCHEMA_DIR, schemaFile('test')));
    expect(schemaViolations('test', file.value)).toEqual([]);
  });

  it('uses every kind at least once', () => {
    const kinds = new Set(ofRole('object').map((f) => (f.value as { kind: string }).kind));
    expect([...kinds].sort()).toEqual(['Installation', 'Package', ...OBJECT_KINDS].sort());
  });

  it('has scenarios of a process, a work rule and a task type, a rejection among them', () => {
    const tests = ofRole('test').map((f) => f.value as { subject?: string; steps: { approve?: { decision: string } }[] });
    expect(new Set(tests.map((t) => t.subject ?? 'process'))).toEqual(new Set(['process', 'rule', 'taskType']));
    const rejects = tests.filter((t) => t.steps.some((s) => s.approve?.decision === 'reject' || s.approve?.decision === 'rejected'));
    expect(rejects.length).toBeGreaterThan(0);
  });

  it('keeps its process data in a JSON Schema that compiles', () => {
    const [schema] = ofRole('data-schema');
    expect(schema).toBeDefined();
    expect(() => ajv.compile(schema!.value as object)).not.toThrow();
  });

  it('has one dictionary per declared locale, with the same keys', () => {
    const manifest = files.find((f) => relative(PACKAGE, f.path) === 'package.yaml')!.value as { spec: { locales: string[] } };
    const dictionaries = new Map(ofRole('dictionary').map((f) => [relative(join(PACKAGE, 'i18n'), f.path).replace(/\.yaml$/, ''), f.value as Record<string, unknown>]));
    expect([...dictionaries.keys()].sort()).toEqual([...manifest.spec.locales].sort());
    const [first, ...others] = [...dictionaries.values()];
    for (const dictionary of others) expect(Object.keys(dictionary).sort()).toEqual(Object.keys(first!).sort());
    for (const dictionary of dictionaries.values()) for (const text of Object.values(dictionary)) expect(typeof text).toBe('string');
  });

  it('loads as a package, the process data schema resolved', async () => {
    const { package: pkg, findings } = await loadPackage(PACKAGE, { cwd: EXAMPLE });
    expect(findings).toEqual([]);
    expect(pkg!.objects).toHaveLength(ofRole('object').length - 2); // all but packages.yaml and package.yaml
    expect(pkg!.tests).toHaveLength(ofRole('test').length);
    expect(pkg!.objects.find((o) => o.kind === 'Process')!.data?.file).toBe('packages/field-maintenance/schemas/work-order.yaml');
  });
});
