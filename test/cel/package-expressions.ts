/**
 * The CEL findings of the processes, views and components of a package as `check` would type them: a
 * process with its `$ref` data schema, the settings and variables of its package manifest, views over the
 * data of the process they show. Shared by the suites that hold real packages to "no finding".
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { checkExpression, createEnvironment, viewExpressions, viewProfile } from '../../src/cel/index.js';
import { expressionProfile, processExpressions, processProfile, stepResultOf } from '../../src/process/index.js';
import type { CelEnvironment, InstallVariable, JsonSchema, Profile } from '../../src/cel/index.js';

/** One diagnostic, where it is and what it says. */
export type ExpressionFinding = string;

export interface ExpressionFindings {
  /** How many expressions were checked: a file with none proves nothing. */
  checked: number;
  findings: ExpressionFinding[];
}

function readYaml(file: string): Record<string, unknown> {
  return parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** `file#/pointer` relative to `from`, as package-sdk resolves `$ref`s to schema files of the package. */
function resolveRef(from: string, ref: string): JsonSchema {
  const [file, pointer = ''] = ref.split('#');
  let node: unknown = readYaml(resolve(dirname(from), file!));
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

/** Environments by profile: expressions of the same kind of place share one. */
function environments(): (profile: Profile) => CelEnvironment {
  const envs = new Map<string, CelEnvironment>();
  return (profile) => {
    const key = JSON.stringify(profile);
    let env = envs.get(key);
    if (env === undefined) envs.set(key, (env = createEnvironment(profile)));
    return env;
  };
}

/** Every expression of the process in `file`, checked where it stands. */
export function processExpressionFindings(file: string): ExpressionFindings {
  const spec = withResolvedData(file, readYaml(file).spec as Record<string, unknown>);
  const { settings, variables } = manifestOf(file);
  const base = processProfile(spec, settings, settings === undefined ? undefined : 'the package');
  const env = environments();
  const expressions = processExpressions(spec);
  const decisions = ((spec.decisions ?? []) as Record<string, unknown>[]);
  const results = (step: Record<string, unknown>) => stepResultOf(step, decisions);
  const findings = expressions.flatMap((e) =>
    checkExpression(env(expressionProfile(base, e, results)), e.source, { expected: e.expected, variables }).diagnostics.map(
      (d) => `${e.pointer}: ${e.source}: ${d.code} ${d.message}`,
    ),
  );
  return { checked: expressions.length, findings };
}

/** Every expression of the views and components of the package in `pkg`, over the data of the process a view shows. */
export function screenExpressionFindings(pkg: string): ExpressionFindings {
  const { settings, variables } = manifestOf(join(pkg, 'views', 'any.yaml'));
  const processes = new Map<string, Record<string, unknown>>();
  for (const name of readdirSync(join(pkg, 'processes'))) {
    const file = join(pkg, 'processes', name);
    const doc = readYaml(file);
    processes.set(doc.key as string, withResolvedData(file, doc.spec as Record<string, unknown>));
  }
  const env = environments();
  let checked = 0;
  const findings: ExpressionFinding[] = [];
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
      const stages = typeof source.process === 'string' ? (processes.get(source.process)?.stages as { id: string }[] | undefined)?.map((stage) => stage.id) : undefined;
      const profile = viewProfile(doc.kind as 'View' | 'Component', { ...spec, params }, { data, settings, ...(stages !== undefined ? { stages } : {}) });
      for (const e of viewExpressions(spec)) {
        checked++;
        const result = checkExpression(env({ ...profile, aggregates: e.aggregates }), e.source, { expected: e.expected, variables });
        findings.push(...result.diagnostics.map((d) => `${folder}/${name}${e.pointer}: ${e.source}: ${d.code} ${d.message}`));
      }
    }
  }
  return { checked, findings };
}
