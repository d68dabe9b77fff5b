/**
 * An artifact type as the core publishes it (validate_artifact_type_definition, compat-core-validators.md §7):
 * a usable metadata schema of at most 16 KiB, media type patterns, and a positive size limit. Every problem is
 * `invalid_artifact_type`.
 */
import { SMALL_DOCUMENT_BYTES } from './json-guard.js';
import { jsonSchemaProblems } from './json-schema.js';
import { isInteger, Problems, type DomainProblem } from './problems.js';
import { mediaTypesProblems } from './task-type.js';

export function artifactTypeProblems(spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_artifact_type');
  for (const problem of jsonSchemaProblems(spec.metadataSchema ?? {}, '/spec/metadataSchema', { label: 'metadataSchema', maxBytes: SMALL_DOCUMENT_BYTES })) {
    problems.add(problem.pointer, `metadataSchema is not usable (${problem.code}): ${problem.problem}`, problem.atKey ? { atKey: true } : {});
  }
  if (spec.mediaTypes !== undefined && spec.mediaTypes !== null) problems.addAll(mediaTypesProblems(spec.mediaTypes, '/spec/mediaTypes', 'invalid_artifact_type'));
  if (spec.maxBytes !== undefined && spec.maxBytes !== null && !(isInteger(spec.maxBytes) && spec.maxBytes >= 1)) {
    problems.add('/spec/maxBytes', 'maxBytes must be a positive integer, at most the deployment’s limit');
  }
  return problems.list;
}
