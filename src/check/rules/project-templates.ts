/**
 * What the core refuses of a project template or a workspace type when it publishes it
 * (compat-core-validators.md §8, §9): the project lifecycle, the field schema, the default configuration of a
 * project and its governance.
 */
import { projectTemplateProblems, workspaceTypeProblems } from '../domain/project-template.js';
import { domainCode, reportProblems, sharedCode } from '../domain/report.js';
import { defineObjectRule } from '../rule.js';

export const projectTemplateStatics = defineObjectRule({
  id: 'project-templates/core',
  description: 'A project template has a project lifecycle, a usable field schema, a default configuration and governance the core accepts; a workspace type a usable field schema.',
  codes: {
    invalid_lifecycle_schema: sharedCode('invalid_lifecycle_schema'),
    invalid_json_schema: sharedCode('invalid_json_schema'),
    invalid_config: domainCode('The default configuration of a project template is refused: a section of the wrong form (settings, views, memory, inheritance). The core refuses it when it publishes the template (plan, apply).'),
    unknown_config_section: domainCode('The default configuration of a project template has a section other than settings, views, governance, memory, inheritance. The core refuses it when it publishes the template (plan, apply).'),
    governance_not_in_settings: domainCode('The settings of a default configuration hold governance, which is a section of its own. The core refuses it when it publishes the template (plan, apply).'),
    invalid_governance: domainCode('A governance field of a project template has a value the core refuses. The core refuses it when it publishes the template (plan, apply).'),
    unknown_governance_field: domainCode('The governance of a project template has a field the core does not know. The core refuses it when it publishes the template (plan, apply).'),
    secret_material_rejected: sharedCode('secret_material_rejected'),
    invalid_instructions: sharedCode('invalid_instructions'),
    instructions_too_large: sharedCode('instructions_too_large'),
    payload_too_large: sharedCode('payload_too_large'),
    payload_too_deep: sharedCode('payload_too_deep'),
  },
  subjects: ['ProjectTemplate', 'WorkspaceType'],
  checkObject(context, object) {
    const view = context.facts.coreView(object);
    if (!('spec' in view)) return;
    reportProblems(context, object, object.kind === 'ProjectTemplate' ? projectTemplateProblems(view.spec) : workspaceTypeProblems(view.spec));
  },
});
