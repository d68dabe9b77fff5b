/**
 * What the core refuses of a skill version when it registers it (compat-core-validators.md §5): the contract
 * (inputs, outputs, implementation, permissions, timeouts, retries, idempotency, cost), the policy columns, and
 * retries that are safe for its side effects. The core checks this at plan and apply, not in its package check.
 */
import { domainCode, reportProblems, sharedCode } from '../domain/report.js';
import { skillProblems } from '../domain/skill.js';
import { defineObjectRule } from '../rule.js';

export const skillContracts = defineObjectRule({
  id: 'skills/contracts',
  description: 'A skill version has a contract the core registers, policy columns, and retries safe for its side effects.',
  codes: {
    invalid_skill: domainCode('A skill with a contract does not declare sideEffects and riskLevel. The core refuses it when it registers the skill (plan, apply).'),
    invalid_skill_contract: domainCode('A skill contract is refused: its members, implementation (protocol, endpoint, entrypoint, auth), permissions, timeout, retries (an external_write skill without idempotency is not retried), cost. The core refuses it when it registers the skill (plan, apply).'),
    unsupported_skill_condition: domainCode('A skill contract lists preconditions or postconditions: the core does not support them yet. The core refuses it when it registers the skill (plan, apply).'),
    invalid_json_schema: sharedCode('invalid_json_schema'),
    secret_material_rejected: sharedCode('secret_material_rejected'),
    payload_too_large: sharedCode('payload_too_large'),
    payload_too_deep: sharedCode('payload_too_deep'),
  },
  subjects: ['Skill'],
  checkObject(context, skill) {
    const view = context.facts.coreView(skill);
    if ('spec' in view) reportProblems(context, skill, skillProblems(view.spec));
  },
});
