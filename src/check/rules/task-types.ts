/**
 * What the core refuses of a task type when it checks a package (compat-core-validators.md §1): the form of its
 * execution, a usable field schema, a lifecycle, approval and completion schemas with their `$.` expressions,
 * a context profile, instructions, artifact slots, acceptance checks and executor roles — every mistake, each
 * under the core's code, where the core names only the first.
 */
import { domainCode, reportProblems, sharedCode } from '../domain/report.js';
import { taskTypeProblems } from '../domain/task-type.js';
import { defineObjectRule } from '../rule.js';

const core = { core: true };

export const taskTypeStatics = defineObjectRule({
  id: 'task-types/core',
  description: 'A task type has the execution, lifecycle, approval, completion, context, artifact and acceptance parts the core accepts.',
  codes: {
    invalid_task_type: domainCode('An acceptance check of a task type is outside the bounds of the request model (at most 50 checks; key, description and when lengths).', core),
    invalid_task_execution: domainCode('execution is not {skill, version, inputs}: a skill name without @, a pinned version, input paths like $.customFields.name.', core),
    invalid_json_schema: sharedCode('invalid_json_schema', core),
    payload_too_large: sharedCode('payload_too_large', core),
    payload_too_deep: sharedCode('payload_too_deep', core),
    invalid_lifecycle_schema: sharedCode('invalid_lifecycle_schema', core),
    invalid_approval_schema: domainCode('An approval schema is refused: only the default gate, its preconditions and outcomes, actions and their $. expressions.', core),
    secret_material_rejected: sharedCode('secret_material_rejected', core),
    invalid_context_schema: domainCode('A context profile is refused: anchors (from, kind or kinds, via), traverse steps, asOf, budgetTokens.', core),
    invalid_instructions: sharedCode('invalid_instructions', core),
    instructions_too_large: sharedCode('instructions_too_large', core),
    invalid_completion_schema: domainCode('A completion schema is refused: onComplete {actions, when?}, only ensureWork and comment, reading $.task and $.spawnedBy.', core),
    invalid_artifact_schema: domainCode('Artifact slots are refused: keys, types, from, content, media type patterns; or an output allows a media type its artifact type does not.', core),
    invalid_acceptance_spec: domainCode('The spec of an acceptance check does not follow the grammar of its kind (deterministic, external_state, human, llm_judge).', core),
    duplicate_check_key: domainCode('Two acceptance checks of a task type have the same key.', core),
    invalid_executor_roles: domainCode('executorRoles is not a list of at most 20 distinct role slugs of two characters or more.', core),
  },
  subjects: ['TaskType'],
  checkObject(context, type) {
    const view = context.facts.coreView(type);
    if ('spec' in view) reportProblems(context, type, taskTypeProblems(view.spec));
  },
});
