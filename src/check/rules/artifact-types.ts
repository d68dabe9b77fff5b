/**
 * What the core refuses of an artifact type when it publishes it (compat-core-validators.md §7): a usable
 * metadata schema of at most 16 KiB, media type patterns, a positive size limit.
 */
import { artifactTypeProblems } from '../domain/artifact-type.js';
import { domainCode, reportProblems } from '../domain/report.js';
import { defineObjectRule } from '../rule.js';

export const artifactTypeStatics = defineObjectRule({
  id: 'artifact-types/core',
  description: 'An artifact type has a usable metadata schema, media type patterns and a positive size limit.',
  codes: {
    invalid_artifact_type: domainCode('An artifact type is refused: its metadataSchema is not a usable JSON Schema of at most 16 KiB, mediaTypes is not a list of 1 to 50 patterns, maxBytes is not positive. The core refuses it when it publishes the type (plan, apply).'),
  },
  subjects: ['ArtifactType'],
  checkObject(context, type) {
    const view = context.facts.coreView(type);
    if ('spec' in view) reportProblems(context, type, artifactTypeProblems(view.spec));
  },
});
