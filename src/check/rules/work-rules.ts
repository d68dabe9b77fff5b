/**
 * What the core refuses of a work rule when it checks a package (compat-core-validators.md §3,
 * normalize_rule_spec): its key, trigger, condition — the core's JSON operator grammar, not CEL —,
 * interpretation and action, and what needs two of them at once. Every mistake is reported, each under the
 * core's code, where the core names only the first.
 */
import { domainCode, reportProblems, sharedCode } from '../domain/report.js';
import { workRuleProblems } from '../domain/work-rule.js';
import { defineObjectRule } from '../rule.js';

const core = { core: true };

export const workRuleStatics = defineObjectRule({
  id: 'work-rules/core',
  description: 'A work rule has a key, trigger, condition, interpretation and action the core accepts.',
  codes: {
    invalid_rule: domainCode('A work rule names a goal, has a key outside ^[a-z0-9][a-z0-9._-]{0,127}$ or a description over 2000 characters, or a schedule trigger creates work without an interpretation.', core),
    invalid_rule_trigger: domainCode('A trigger is refused: its kind (observation, event, schedule) and members, the type, source, agent, actorId or interval; target: task without an author filter.', core),
    invalid_rule_condition: sharedCode('invalid_rule_condition', core),
    invalid_rule_interpretation: domainCode('An interpretation is not {skill: name@version, inputs} with placeholders of known roots.', core),
    invalid_rule_action: domainCode('An action is refused: its kind and the members that kind takes (taskType, taskTypes, dedupKeyTemplate, fields, forEach, where, target, acceptance, check) and its placeholders.', core),
    secret_material_rejected: sharedCode('secret_material_rejected', core),
    payload_too_large: sharedCode('payload_too_large', core),
    payload_too_deep: sharedCode('payload_too_deep', core),
  },
  subjects: ['WorkRule'],
  checkObject(context, rule) {
    const view = context.facts.coreView(rule);
    if ('spec' in view) reportProblems(context, rule, workRuleProblems(rule.key, view.spec));
  },
});
