/**
 * Notification rules (compat-core-validators.md §14): the notification service keeps them, the core does not
 * check them; their `on.when` is a condition of the work-rule grammar over the event's payload, the event and
 * its task.
 */
import { isRecord } from '../../json/guards.js';
import { reportProblems, sharedCode } from '../domain/report.js';
import { conditionProblems } from '../domain/rule-condition.js';
import { defineObjectRule } from '../rule.js';

const ROOTS = ['payload', 'event', 'task'];

export const notificationConditions = defineObjectRule({
  id: 'notification-rules/conditions',
  description: 'The on.when of a notification rule is a condition of the rule grammar over payload, event and task.',
  codes: {
    invalid_rule_condition: sharedCode('invalid_rule_condition'),
  },
  subjects: ['NotificationRule'],
  checkObject(context, rule) {
    const view = context.facts.coreView(rule);
    const on = 'spec' in view ? view.spec.on : undefined;
    if (isRecord(on)) reportProblems(context, rule, conditionProblems(on.when, '/spec/on/when', ROOTS));
  },
});
