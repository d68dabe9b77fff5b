// Every expression of the real processes, views and components type-checks without a finding.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkExpression, createEnvironment, expressionProfile, processExpressions, processProfile, viewExpressions, viewProfile } from '../../src/cel/index.js';
import type { CelEnvironment, InstallVariable, JsonSchema, Profile } from '../../src/cel/index.js';

const root = resolve(import.meta.dirname, '../..');
const corpus = resolve(root, '../shared/corpus');

const PROCESS_FILES = [
  'claims/claims/processes/claim.yaml',
  'fixtures/process/purchase.process.yaml',
  'fixtures/manifest/acme-claims/processes/claim.yaml',
  'fixtures/settings/packages/claims-intake/processes/claim.yaml',
  'fixtures/handoff/packages/intake-demo/processes/request-intake.yaml',
  'fixtures/pyramid/packages/review-flow/processes/request-intake.yaml',
  'fixtures/sla/packages/sla-demo/processes/request-sla.yaml',
  'fixtures/screens/packages/invoice-payment/processes/invoice-payment.yaml',
].map((file) => join(corpus, file)).concat(join(root, 'fixtures/example/packages/field-maintenance/processes/work-order.yaml'));

const SCREEN_PACKAGES = [
  join(corpus, 'fixtures/screens/packages/invoice-payment'),
  join(root, 'fixtures/example/packages/field-maintenance'),
];

function readYaml(file: string): Record<string, unknown> {
  return parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** `file#/pointer` relative to `from`, as package-sdk resolves `$ref`s to schema files of the package. */
function resolveRef(from: string, ref: string): JsonSchema {
  const [file, pointer = ''] = ref.split('#');
  let node: unknown = readYaml(resolve(dirname(from), file));
  for (const key of pointer.split('/').slice(1)) node = (node as Record<string, unknown>)[key];
  return node as JsonSchema;
}

function withResolvedData(file: string, spec: Record<string, unknown>): Record<string, unknown> {
  const data = spec.data as Record<string, unknown> | undefined;
  return typeof data?.$ref === 'string' ? { ...spec, data: resolveRef(file, data.$ref) } : spec;
}

/** The manifest of the package a file belongs to (`<package>/<folder>/<file>`), if there is one. */
function manifestOf(file: string): { settings?: JsonSchema; variables: Record<string, InstallVariable> } {
  const manifest = join(dirname(dirname(file)), 'package.yaml');
  if (!existsSync(manifest)) return { variables: {} };
  const spec = readYaml(manifest).spec as Record<string, unknown>;
  const settings = (spec.settings as { schema?: JsonSchema } | undefined)?.schema;
  return { settings, variables: (spec.variables ?? {}) as Record<string, InstallVariable> };
}

function envCache(): (profile: Profile) => CelEnvironment {
  const envs = new Map<string, CelEnvironment>();
  return (profile) => {
    const key = JSON.stringify(profile);
    let env = envs.get(key);
    if (env === undefined) envs.set(key, (env = createEnvironment(profile)));
    return env;
  };
}

describe('corpus processes', () => {
  it.each(PROCESS_FILES)('%s checks clean', (file) => {
    const spec = withResolvedData(file, readYaml(file).spec as Record<string, unknown>);
    const { settings, variables } = manifestOf(file);
    const base = processProfile(spec, settings);
    const env = envCache();
    const expressions = processExpressions(spec);
    expect(expressions.length).toBeGreaterThan(2);
    const findings = expressions.flatMap((e) => {
      const result = checkExpression(env(expressionProfile(base, e)), e.source, { expected: e.expected, variables });
      return result.diagnostics.map((d) => ({ pointer: e.pointer, source: e.source, ...d }));
    });
    expect(findings).toEqual([]);
  });
});

describe('corpus screens', () => {
  it.each(SCREEN_PACKAGES)('%s views and components check clean', (pkg) => {
    const { settings, variables } = manifestOf(join(pkg, 'views', 'x.yaml'));
    const processes = new Map<string, Record<string, unknown>>();
    for (const name of readdirSync(join(pkg, 'processes'))) {
      const file = join(pkg, 'processes', name);
      const doc = readYaml(file);
      processes.set(doc.key as string, withResolvedData(file, doc.spec as Record<string, unknown>));
    }
    const env = envCache();
    let count = 0;
    for (const folder of ['views', 'components']) {
      for (const name of readdirSync(join(pkg, folder))) {
        const file = join(pkg, folder, name);
        const doc = readYaml(file);
        const spec = doc.spec as Record<string, unknown>;
        const params = Object.fromEntries(Object.entries((spec.params ?? {}) as Record<string, Record<string, unknown>>).map(([k, p]) => {
          const schema = p.schema as Record<string, unknown> | undefined;
          return [k, typeof schema?.$ref === 'string' ? { ...p, schema: resolveRef(file, schema.$ref) } : p];
        }));
        const source = (spec.source ?? {}) as Record<string, unknown>;
        const data = typeof source.process === 'string' ? processes.get(source.process)?.data as JsonSchema : undefined;
        const profile = viewProfile(doc.kind as 'View' | 'Component', { ...spec, params }, { data, settings, processSource: data !== undefined });
        for (const e of viewExpressions(spec)) {
          count++;
          const result = checkExpression(env({ ...profile, aggregates: e.aggregates }), e.source, { expected: e.expected, variables });
          expect(result.diagnostics, `${file}${e.pointer}: ${e.source}`).toEqual([]);
        }
      }
    }
    expect(count).toBeGreaterThan(4);
  });
});
