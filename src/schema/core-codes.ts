/**
 * Which schema errors the core reports under a code of its own. The core checks the shape of each kind with
 * its request model (`TaskTypeCreateRequest`, `RuleCreateRequest`, …; compat-core-validators.md §0.2), which
 * `check`'s format schema mirrors: those stay `schema_violation`. But the request models take some parts as
 * bare objects — a lifecycle, an approval schema, a rule's trigger and action, a skill contract — and leave
 * them to the domain validators, which report under their own codes. A schema error inside such a part is the
 * mistake the core reports there, so it carries the core's code.
 */
import type { ObjectKind } from '../model/kinds.js';

/** A part of an object (a pointer and everything under it) and the code of its mistakes. */
type Part = readonly [pointer: string, code: string];

const PARTS: Partial<Record<ObjectKind, readonly Part[]>> = {
  TaskType: [
    ['/spec/execution', 'invalid_task_execution'],
    ['/spec/fieldSchema', 'invalid_json_schema'],
    ['/spec/lifecycleSchema', 'invalid_lifecycle_schema'],
    ['/spec/approvalSchema', 'invalid_approval_schema'],
    ['/spec/contextSchema', 'invalid_context_schema'],
    ['/spec/instructions', 'invalid_instructions'],
    ['/spec/completionSchema', 'invalid_completion_schema'],
    ['/spec/artifactSchema', 'invalid_artifact_schema'],
    ['/spec/executorRoles', 'invalid_executor_roles'],
  ],
  WorkRule: [
    ['/key', 'invalid_rule'],
    ['/spec/goalId', 'invalid_rule'],
    ['/spec/description', 'invalid_rule'],
    ['/spec/trigger', 'invalid_rule_trigger'],
    ['/spec/condition', 'invalid_rule_condition'],
    ['/spec/interpretation', 'invalid_rule_interpretation'],
    ['/spec/action/where', 'invalid_rule_condition'],
    ['/spec/action', 'invalid_rule_action'],
  ],
  Skill: [
    ['/spec/contract', 'invalid_skill_contract'],
    ['/spec/inputSchema', 'invalid_json_schema'],
    ['/spec/outputSchema', 'invalid_json_schema'],
  ],
  ConnectionType: [
    ['/spec/displayName', 'invalid_connection_type'],
    ['/spec/description', 'invalid_connection_type'],
    ['/spec/auth', 'invalid_connection_type'],
    ['/spec/oauth2', 'invalid_connection_type'],
    ['/spec/accountField', 'invalid_connection_type'],
    ['/spec/settingsSchema', 'invalid_connection_type'],
    ['/spec/defaultKey', 'invalid_connection_type'],
  ],
  ArtifactType: [
    ['/spec/metadataSchema', 'invalid_artifact_type'],
    ['/spec/mediaTypes', 'invalid_artifact_type'],
    ['/spec/maxBytes', 'invalid_artifact_type'],
  ],
  ProjectTemplate: [
    ['/spec/fieldSchema', 'invalid_json_schema'],
    ['/spec/lifecycleSchema', 'invalid_lifecycle_schema'],
    ['/spec/defaultConfig', 'invalid_config'],
  ],
  WorkspaceType: [['/spec/fieldSchema', 'invalid_json_schema']],
  Process: [['/key', 'invalid_document']],
  Calendar: [
    ['/key', 'invalid_document'],
    ['/spec/timezone', 'unknown_timezone'],
    ['/spec/workingHours', 'invalid_working_hours'],
  ],
};

/** Unknown members of these parts are refused by the API contract before the domain validator sees them. */
const CONTRACT_PARTS: Partial<Record<ObjectKind, readonly string[]>> = {
  ConnectionType: ['/spec', '/spec/oauth2', '/spec/accountField'],
};

/** Names of the governance schema and the sections of a default config: a wrong name has a code of its own. */
const UNKNOWN_NAME_CODES: Partial<Record<ObjectKind, Record<string, string>>> = {
  ProjectTemplate: { '/spec/defaultConfig': 'unknown_config_section' },
};

/**
 * The core's code of a schema error (failing `keyword`) of an object of `kind` at `pointer`, or undefined when
 * it stays `schema_violation`.
 */
export function coreCodeOfSchemaError(kind: unknown, pointer: string, keyword: string): string | undefined {
  const parts = PARTS[kind as ObjectKind];
  if (parts === undefined) return undefined;
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  const unknown = keyword === 'additionalProperties' || keyword === 'unevaluatedProperties';
  // A connection setting named like a secret: the name scan of the core's secret check.
  if (kind === 'ConnectionType' && keyword === 'propertyNames' && pointer.startsWith('/spec/settingsSchema/')) return 'secret_material_rejected';
  if (unknown && (CONTRACT_PARTS[kind as ObjectKind] ?? []).includes(parent)) return 'invalid_request';
  if (unknown && UNKNOWN_NAME_CODES[kind as ObjectKind]?.[parent] !== undefined) return UNKNOWN_NAME_CODES[kind as ObjectKind]![parent];
  const part = parts.find(([prefix]) => pointer === prefix || pointer.startsWith(`${prefix}/`));
  return part?.[1];
}
