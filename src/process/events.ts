/**
 * The core's event catalog as far as a process can name it (compat-core-validators.md §2.15): `on: {event: <type>}`
 * of a trigger must be one of these types; facts from connectors are `on: {observation: <kind>}` instead.
 *
 * The catalog was read from the core's documentation with one gap: a few types that sort between
 * `project_template.deprecated` and `role.assigned` were not read. A type in that stretch may exist, so it is never
 * called unknown. The payload fields of each type are not known here: payloads stay untyped.
 */

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set([
  'agent.identity_replaced', 'agent.retired', 'agent.revision_published', 'agent.secret_deleted', 'agent.secret_set',
  'agent.state_changed', 'agent.status_changed',
  'api_key.break_glass_issued', 'api_key.created', 'api_key.revoked',
  'approval.approved', 'approval.cancelled', 'approval.outcome_deferred', 'approval.outcome_executed',
  'approval.outcome_failed', 'approval.rejected', 'approval.requested',
  'artifact.content_purged', 'artifact.content_read', 'artifact.created',
  'artifact_type.created',
  'attention.feedback_recorded',
  'calendar.published', 'calendar.restored', 'calendar.retired',
  'capability.assigned', 'capability.created', 'capability.revoked',
  'claim.expired', 'claim.released',
  'connection.authorization_failed', 'connection.authorized', 'connection.created', 'connection.revoked',
  'connection.status_changed', 'connection.updated',
  'connection_type.oauth_app_set', 'connection_type.published',
  'context_adapter.rebuilt', 'context_adapter.redriven',
  'delegation.created', 'delegation.revoked',
  'event_journal.archived', 'event_journal.exported', 'event_journal.pruned',
  'goal.created', 'goal.updated',
  'iam_binding.created', 'iam_binding.revoked', 'iam_binding.updated',
  'knowledge.changed', 'knowledge.document_stored', 'knowledge.pack_registered', 'knowledge.packs_configured',
  'knowledge.snapshot_reconciled',
  'observation.recorded',
  'package.settings_changed',
  'principal.created', 'principal.disabled', 'principal.enabled', 'principal.updated',
  'process.cancelled', 'process.compensated', 'process.completed', 'process.correlated', 'process.data_changed',
  'process.definition_published', 'process.definition_restored', 'process.definition_retired', 'process.escalated',
  'process.failed', 'process.migrated', 'process.milestone_lost', 'process.milestone_reached',
  'process.recall_completed', 'process.recall_timed_out', 'process.resumed', 'process.sla_breached',
  'process.sla_failed', 'process.sla_warning', 'process.stage_entered', 'process.stage_exited', 'process.started',
  'process.step_entered', 'process.step_exited', 'process.suspended', 'process.timer_fired',
  'process.timer_rescheduled',
  'project.archived', 'project.config_revision_activated', 'project.config_revision_created', 'project.created',
  'project.external_reference_added', 'project.external_reference_updated', 'project.status_changed',
  'project.updated',
  'project_template.created', 'project_template.deprecated',
  'role.assigned', 'role.created', 'role.revoked', 'role.updated',
  'rule.archived', 'rule.created', 'rule.disabled', 'rule.enabled', 'rule.evaluated', 'rule.updated',
  'run.cancel_requested', 'run.cancelled', 'run.checkpointed', 'run.child.cancel_requested', 'run.child.launched',
  'run.child.resolved', 'run.child.revoked', 'run.child.started', 'run.control_message.accepted',
  'run.control_message.applied', 'run.control_message.rejected', 'run.control_message.superseded', 'run.failed',
  'run.handoff_prepared', 'run.manifest_compiled', 'run.manifest_ephemeral_recorded', 'run.started', 'run.succeeded',
  'run.suspended',
  'session.closed', 'session.expired', 'session.opened',
  'skill.assigned', 'skill.invocation_cancelled', 'skill.invocation_claimed', 'skill.invocation_failed',
  'skill.invocation_requested', 'skill.invocation_retry_scheduled', 'skill.invocation_succeeded', 'skill.registered',
  'skill.revoked', 'skill.updated',
  'task.claimed', 'task.comment_added', 'task.comment_edited', 'task.completed', 'task.completion_work_executed',
  'task.completion_work_failed', 'task.context_pack_recorded', 'task.created', 'task.external_reference_added',
  'task.external_reference_updated', 'task.relation_added', 'task.relation_removed', 'task.type_migrated',
  'task.updated', 'task.verification_failed', 'task.verification_started', 'task.verified',
  'task_type.created', 'task_type.deprecated',
  'tenant.bootstrapped',
  'view.published', 'view.retired',
  'work.derived', 'work.reconciled',
  'workspace.archived', 'workspace.created', 'workspace.member_added', 'workspace.member_removed', 'workspace.moved',
  'workspace.updated',
  'workspace_type.archived', 'workspace_type.created', 'workspace_type.updated',
]);

/** Types of the catalog that sort strictly between these two were not read (see above). */
const UNREAD_AFTER = 'project_template.deprecated';
const UNREAD_BEFORE = 'role.assigned';

/** Whether the catalog has the event type; undefined when it may have it (the unread stretch of the catalog). */
export function knownEventType(type: string): boolean | undefined {
  if (KNOWN_EVENT_TYPES.has(type)) return true;
  return type > UNREAD_AFTER && type < UNREAD_BEFORE ? undefined : false;
}

/** The catalog's types, for a "did you mean" among them. */
export const EVENT_TYPES: readonly string[] = [...KNOWN_EVENT_TYPES];
