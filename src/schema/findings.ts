import type { SourceDocument } from '../json/document.js';
import { fieldOf, valueAt } from '../json/pointer.js';
import { didYouMean } from '../model/did-you-mean.js';
import type { Finding } from '../model/finding.js';
import type { SchemaName } from './names.js';
import { reduceSchemaErrors, type SchemaMistake } from './errors.js';
import { validatorFor } from './validators.js';
import { coreCodeOfSchemaError } from './core-codes.js';

/**
 * What remembers the documents that passed their schema (the check's index). Loading provides it, and passes
 * over the documents it knows as clean before asking for their findings (10,000 unchanged documents would cost
 * an await each here); this floor only tells it which passed.
 */
export interface SchemaMemo {
  markClean(document: SourceDocument, schema: SchemaName): void;
}

/**
 * Stage 1 of `check`: one document against one public schema, one finding per mistake, at the node that is
 * wrong: `schema_violation`, or the core's code where the mistake is in a part of an object that the core's
 * domain validators check (core-codes.ts) — its message then names the field, as theirs do.
 */
export async function schemaFindings(document: SourceDocument, schema: SchemaName, memo?: SchemaMemo): Promise<Finding[]> {
  const validate = await validatorFor(schema);
  const mistakes = validate(document.value) ? [] : reduceSchemaErrors(validate.errors ?? []);
  const kind = schema === 'object' ? (document.value as { kind?: unknown } | null)?.kind : undefined;
  const findings = mistakes.filter((mistake) => !isGitSourceUrl(document, kind, mistake)).map((mistake) => toFinding(document, mistake, kind));
  if (findings.length === 0) memo?.markClean(document, schema);
  return findings;
}

/**
 * The URL of an installation's git source is judged by the one source policy of every command (git_url_invalid,
 * which also admits the loopback and file URLs lock and plan use on one machine), not by the published pattern.
 */
function isGitSourceUrl(document: SourceDocument, kind: unknown, mistake: SchemaMistake): boolean {
  return kind === 'Installation' && /^\/spec\/packages\/\d+\/git$/.test(mistake.pointer) && typeof valueAt(document.value, mistake.pointer) === 'string';
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
