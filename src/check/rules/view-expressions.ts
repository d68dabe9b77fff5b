/**
 * The expressions of screens: every CEL value, filter and id of a View or a Component is checked in the `cp/1`
 * profile as the core compiles it when it plans: over the fields of its source (`data.*`, `stage`, … of the
 * source process, and the record's `id`, `status`, `slaState`), its params (`param.*`) and the package
 * settings. Aggregates outside metrics and chart are the screens rule's finding.
 */
import { dirname, join } from 'node:path';
import { checkExpression, createEnvironment, viewExpressions, viewProfile, type JsonSchema } from '../../cel/index.js';
import type { SourceDocument } from '../../json/document.js';
import { pointerSegments } from '../../json/pointer.js';
import type { PackageObject } from '../../model/package.js';
import { defineRule } from '../rule.js';
import { SCREEN_EXPRESSION_CODES, reportDiagnostics } from '../expression-findings.js';
import { isRecord } from '../../json/guards.js';
import { processModel } from '../../process/index.js';

export const viewExpressionRules = defineRule({
  id: 'screens/expressions',
  description: 'Every CEL expression of a View or Component type-checks over its source data, its params and the package settings.',
  codes: SCREEN_EXPRESSION_CODES,
  check(context) {
    const documents = context.workspace.documents();
    for (const screen of [...context.objects('View'), ...context.objects('Component')]) {
      const pkg = context.workspace.package(screen.package);
      const source = isRecord(screen.spec.source) ? screen.spec.source : {};
      const process = typeof source.process === 'string' ? context.lookup(screen.package, 'Process', source.process) : undefined;
      const data = process === undefined ? undefined : context.facts.dataSchema(process);
      if (typeof source.process === 'string' && data === undefined) continue; // unknown_source says why
      const settings = context.facts.expressionSettings(pkg);
      const spec = { ...screen.spec, params: paramsWithSchemas(screen, documents) };
      // Aggregates type-check everywhere: where they do not belong, screens/aggregates reports them.
      const stages = process === undefined ? undefined : processModel(process.spec).stages.map((stage) => stage.id);
      const options = { data, settings, settingsPackage: pkg?.key, ...(stages !== undefined ? { stages } : {}) };
      const profile = { ...viewProfile(screen.kind as 'View' | 'Component', spec, options), aggregates: true };
      const env = createEnvironment(profile);
      const variables = context.facts.variables(pkg);
      for (const expression of viewExpressions(screen.spec)) {
        const result = checkExpression(env, expression.source, { expected: expression.expected, variables });
        reportDiagnostics(context, screen.document, expression.pointer, result);
      }
    }
  },
});

/**
 * `spec.params` with each `schema: {$ref: file#pointer}` replaced by the schema it names, when that file is
 * loaded with the package (a process data schema); otherwise the param is untyped (unresolved_schema_ref is
 * the screens rule's finding).
 */
function paramsWithSchemas(screen: PackageObject, documents: ReadonlyMap<string, SourceDocument>): unknown {
  const params = screen.spec.params;
  if (!isRecord(params)) return params;
  return Object.fromEntries(Object.entries(params).map(([name, param]) => {
    if (!isRecord(param) || !isRecord(param.schema) || typeof param.schema.$ref !== 'string') return [name, param];
    return [name, { ...param, schema: resolveFileRef(screen.file, param.schema.$ref, documents) ?? {} }];
  }));
}

function resolveFileRef(from: string, ref: string, documents: ReadonlyMap<string, SourceDocument>): JsonSchema | undefined {
  const [file = '', pointer = ''] = ref.split('#');
  if (file === '') return undefined;
  let node: unknown = documents.get(join(dirname(from), file))?.value;
  for (const segment of pointerSegments(pointer)) node = isRecord(node) ? node[segment] : undefined;
  return isRecord(node) ? node : undefined;
}
