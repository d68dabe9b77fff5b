import type { SourceDocument } from '../json/document.js';
import { didYouMean } from '../model/did-you-mean.js';
import type { Finding } from '../model/finding.js';
import type { SchemaName } from '../schema/names.js';
import { reduceSchemaErrors, type SchemaMistake } from '../schema/errors.js';
import { validatorFor } from '../schema/validators.js';
import { fieldOf } from './domain/problems.js';
import { coreCodeOfSchemaError } from './domain/schema-codes.js';

/**
 * Stage 1 of `check`: one document against one public schema, one finding per mistake, at the node that is
 * wrong: `schema_violation`, or the core's code where the mistake is in a part of an object that the core's
 * domain validators check (src/check/domain/schema-codes.ts) — its message then names the field, as theirs do.
 */
export async function schemaFindings(document: SourceDocument, schema: SchemaName): Promise<Finding[]> {
  const validate = await validatorFor(schema);
  if (validate(document.value)) return [];
  const kind = schema === 'object' ? (document.value as { kind?: unknown } | null)?.kind : undefined;
  return reduceSchemaErrors(validate.errors ?? []).map((mistake) => toFinding(document, mistake, kind));
}

function toFinding(document: SourceDocument, mistake: SchemaMistake, kind: unknown): Finding {
  const span = document.locate(mistake.pointer, mistake.atKey ? 'key' : 'value');
  const hint =
    (mistake.actual !== undefined && mistake.candidates ? didYouMean(mistake.actual, mistake.candidates) : undefined) ??
    mistake.explanation;
  const coreCode = kind === undefined ? undefined : coreCodeOfSchemaError(kind, mistake.pointer, mistake.keyword);
  return {
    code: coreCode ?? 'schema_violation',
    severity: 'error',
    message: coreCode ? `${fieldOf(mistake.pointer)}: ${mistake.message}` : mistake.message,
    file: document.file,
    path: mistake.pointer,
    ...span,
    ...(hint ? { hint } : {}),
  };
}
