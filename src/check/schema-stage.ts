import type { SourceDocument } from '../json/document.js';
import { didYouMean } from '../model/did-you-mean.js';
import type { Finding } from '../model/finding.js';
import type { SchemaName } from '../schema/names.js';
import { reduceSchemaErrors, type SchemaMistake } from '../schema/errors.js';
import { validatorFor } from '../schema/validators.js';

/**
 * Stage 1 of `check`: one document against one public schema, one `schema_violation` finding per mistake,
 * at the node that is wrong.
 */
export async function schemaFindings(document: SourceDocument, schema: SchemaName): Promise<Finding[]> {
  const validate = await validatorFor(schema);
  if (validate(document.value)) return [];
  return reduceSchemaErrors(validate.errors ?? []).map((mistake) => toFinding(document, mistake));
}

function toFinding(document: SourceDocument, mistake: SchemaMistake): Finding {
  const span = document.locate(mistake.pointer, mistake.atKey ? 'key' : 'value');
  const hint =
    (mistake.actual !== undefined && mistake.candidates ? didYouMean(mistake.actual, mistake.candidates) : undefined) ??
    mistake.explanation;
  return {
    code: 'schema_violation',
    severity: 'error',
    message: mistake.message,
    file: document.file,
    path: mistake.pointer,
    ...span,
    ...(hint ? { hint } : {}),
  };
}
