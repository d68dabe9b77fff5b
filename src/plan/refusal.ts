/**
 * The refusals of plan and apply (a `Refusal`, src/model/refusal.ts): a stable code, a message that says what
 * happened, and the way out. A refusal exits 1 (2 for a usage problem) and has written nothing it should not have.
 *
 * | code                  | when                                                                           |
 * |-----------------------|--------------------------------------------------------------------------------|
 * | server_invalid        | `--server` is not https (or http to loopback), or carries credentials (exit 2) |
 * | token_missing         | no CP_TOKEN for a remote core (exit 2)                                         |
 * | env_unreadable        | the `--env` file cannot be read (exit 2)                                       |
 * | lock_invalid, lock_stale, content_mismatch | packages.lock unreadable, or not what the installation is now |
 * | packages_invalid      | the installation does not load, or its packages fail the static check           |
 * | core_version_unknown  | `/openapi.json` cannot be read or has no `info.version`                        |
 * | engines_incompatible  | the core's version is outside a package's `engines.control-plane` range        |
 * | variables_missing     | a variable the packages use has no value                                       |
 * | variables_invalid     | a value does not fit its kind, or names a workspace/project/… the core lacks    |
 * | notification_service_required | notification rules, but no NOTIFICATION_SERVICE_URL and token           |
 * | core_rejected         | the core refused a request (its code and message are kept)                    |
 * | core_unreachable      | no answer from the core                                                        |
 * | core_plan_errors      | the core's plan has errors or needs a migration: the plan is not saved          |
 * | catalog_conflict      | an object cannot be planned (immutable version changed, archived type, …)      |
 * | calendar_in_use       | a calendar to retire is used by processes this plan does not retire            |
 * | plan_not_written      | `--out` cannot be written (exit 2)                                             |
 * | plan_invalid          | the file is not a package-sdk.plan/v1 plan                                     |
 * | plan_modified         | the plan was edited after it was built (planHash)                              |
 * | server_mismatch       | the plan was built for another core                                           |
 * | plan_stale            | what the plan was built against moved (packages, variables, the core)          |
 * | apply_not_confirmed   | nobody approved the plan (no TTY without --auto-approve/--plan-hash, or "no")   |
 * | apply_failed          | a write failed half-way; plan and apply again to complete                     |
 */
import { Refusal } from '../fs/refusal.js';
export function stale(reason: string): Refusal {
  return new Refusal('plan_stale', `the plan is stale — ${reason}`, { hint: 'build the plan again (package-sdk plan … --out) and apply the new one' });
}
