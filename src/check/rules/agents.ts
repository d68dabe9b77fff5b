/**
 * Agents and roles as the core's request models bound them (compat-core-validators.md §4, §10): lengths,
 * counts and ranges the format schema leaves out.
 */
import { agentProblems, roleProblems } from '../domain/agent.js';
import { domainCode, reportProblems } from '../domain/report.js';
import { defineObjectRule } from '../rule.js';

export const agentBounds = defineObjectRule({
  id: 'agents/core',
  description: 'An agent keeps to the bounds of the core (lengths, list sizes, resources, concurrency); a role slug has two characters or more.',
  codes: {
    invalid_agent: domainCode('An agent is outside the bounds of the core: a description over 2000 characters, roles of one character, memoryMb outside 64..262144, cpus over 64, concurrency over 32, lists too long.', { core: true }),
    invalid_role: domainCode('The slug (key) of a role has one character; the core takes 2 to 63 when it creates the role (plan, apply).'),
  },
  subjects: ['Agent', 'Role'],
  checkObject(context, object) {
    if (object.kind === 'Role') {
      reportProblems(context, object, roleProblems(object.key));
      return;
    }
    const view = context.facts.coreView(object);
    if ('spec' in view) reportProblems(context, object, agentProblems({ spec: view.spec }));
  },
});
