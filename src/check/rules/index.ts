/**
 * Every stage-2 rule, grouped by family — one file to read to know what `check` looks for.
 */
import type { Rule } from '../rule.js';
import { agentBounds } from './agents.js';
import { artifactTypeStatics } from './artifact-types.js';
import { calendarStatics } from './calendars.js';
import { connectionTypes } from './connection-types.js';
import { dictionaries, locales } from './dictionaries.js';
import { decisionTables } from './decision-tables.js';
import { duplicates } from './duplicates.js';
import { installationKnowledge, knowledgeDeclared, knowledgePacks } from './knowledge.js';
import { engines, requires, variables } from './manifest.js';
import { packageSize } from './package-size.js';
import { notificationConditions } from './notification-rules.js';
import { processCalendars, processElementRules } from './process-statics.js';
import { processDefinition, processGovernedBy } from './process-definition.js';
import { processRemember, processSteps } from './process-steps.js';
import { processExpressionRules } from './process-expressions.js';
import { processReachability } from './process-reachability.js';
import { projectTemplateStatics } from './project-templates.js';
import { references } from './references.js';
import { renames, retire } from './renames.js';
import { screenAggregates, screenMessages, screenReferences, screenShapes } from './screens.js';
import { secretMaterial } from './secret-material.js';
import { settingsReads } from './settings-reads.js';
import { settingsDeclaration, settingsForm, settingsLabels } from './settings.js';
import { skillContracts } from './skills.js';
import { taskTypeStatics } from './task-types.js';
import { packageTests } from './tests.js';
import { unresolvedVariables } from './unresolved-variables.js';
import { viewExpressionRules } from './view-expressions.js';
import { workRuleStatics } from './work-rules.js';
import { workingCopies } from './working-copies.js';

export const RULES: readonly Rule[] = [
  // objects
  duplicates,
  // manifest
  variables,
  unresolvedVariables,
  requires,
  engines,
  // knowledge
  knowledgePacks,
  knowledgeDeclared,
  installationKnowledge,
  // the core's checks of each kind
  taskTypeStatics,
  workRuleStatics,
  agentBounds,
  calendarStatics,
  skillContracts,
  artifactTypeStatics,
  projectTemplateStatics,
  notificationConditions,
  // settings
  settingsDeclaration,
  settingsForm,
  settingsLabels,
  settingsReads,
  // references
  references,
  // process statics
  processDefinition,
  processElementRules,
  processSteps,
  processRemember,
  processCalendars,
  processGovernedBy,
  // process language
  processExpressionRules,
  decisionTables,
  processReachability,
  // renames and retire
  renames,
  retire,
  // connection types and secrets
  connectionTypes,
  // the core's limits on a package
  packageSize,
  secretMaterial,
  // agents
  workingCopies,
  // screens and dictionaries
  locales,
  dictionaries,
  screenShapes,
  screenReferences,
  screenAggregates,
  screenMessages,
  viewExpressionRules,
  // package tests
  packageTests,
];
