/**
 * Project templates and workspace types (compat-core-validators.md §8, §9): the project lifecycle, the field
 * schema, the default configuration of a project (validate_config_document) and the governance section of it
 * (validate_governance). `governanceSchema` describes what a project may set, not the values: it is the
 * format schema's.
 */
import { isRecord } from '../../json/guards.js';
import { guardProblems, secretKeyProblems } from './json-guard.js';
import { jsonSchemaProblems } from './json-schema.js';
import { lifecycleProblems } from './lifecycle.js';
import { at, isInteger, listed, Problems, type DomainProblem } from './problems.js';
import { instructionsProblems } from './task-type.js';

const SECTIONS = ['settings', 'views', 'governance', 'memory', 'inheritance'];
const GOVERNANCE: Record<string, (value: unknown) => boolean> = {
  maxAutonomyLevel: (value) => ['supervised', 'assisted', 'autonomous'].includes(value as string),
  requireApprovalForRun: (value) => typeof value === 'boolean',
  requireApprovalForCompletion: (value) => typeof value === 'boolean',
  allowedTaskPriorities: (value) => isSubset(value, ['critical', 'high', 'medium', 'low']),
  allowedSkillProtocols: (value) => isSubset(value, ['mcp', 'http', 'local', 'opencode', 'custom']),
  maxRunDurationSeconds: isCountOrNull,
  maxRunActions: isCountOrNull,
  maxConcurrentRuns: isCountOrNull,
  memoryScopeSharing: (value) => ['none', 'project', 'ancestors'].includes(value as string),
};
const EXPECTED: Record<string, string> = {
  maxAutonomyLevel: "one of ['supervised', 'assisted', 'autonomous']",
  requireApprovalForRun: 'a boolean',
  requireApprovalForCompletion: 'a boolean',
  allowedTaskPriorities: "a list of ['critical', 'high', 'medium', 'low']",
  allowedSkillProtocols: "a list of ['mcp', 'http', 'local', 'opencode', 'custom']",
  maxRunDurationSeconds: 'a non-negative integer or null',
  maxRunActions: 'a non-negative integer or null',
  maxConcurrentRuns: 'a non-negative integer or null',
  memoryScopeSharing: "one of ['none', 'project', 'ancestors']",
};

function isSubset(value: unknown, allowed: readonly string[]): boolean {
  return Array.isArray(value) && value.every((item) => allowed.includes(item as string));
}

function isCountOrNull(value: unknown): boolean {
  return value === null || (isInteger(value) && value >= 0);
}

export function projectTemplateProblems(spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_config');
  if (spec.lifecycleSchema !== undefined && spec.lifecycleSchema !== null) problems.addAll(lifecycleProblems(spec.lifecycleSchema, '/spec/lifecycleSchema', 'project').problems);
  problems.addAll(jsonSchemaProblems(spec.fieldSchema ?? {}, '/spec/fieldSchema', { label: 'fieldSchema' }));
  if (spec.defaultConfig !== undefined && spec.defaultConfig !== null) configProblems(spec.defaultConfig, '/spec/defaultConfig', problems);
  return problems.list;
}

export function workspaceTypeProblems(spec: Record<string, unknown>): DomainProblem[] {
  return jsonSchemaProblems(spec.fieldSchema ?? {}, '/spec/fieldSchema', { label: 'fieldSchema' });
}

/** The default configuration of a project: its sections, each in its form, no secret anywhere. */
function configProblems(config: unknown, pointer: string, problems: Problems): void {
  const guard = guardProblems(config, pointer, 'defaultConfig', 'invalid_config');
  if (guard.length > 0 || !isRecord(config)) return problems.addAll(guard);
  for (const name of Object.keys(config).filter((key) => !SECTIONS.includes(key))) {
    problems.add(at(pointer, name), `unknown config section '${name}'`, { code: 'unknown_config_section', atKey: true, hint: `sections: ${SECTIONS.join(', ')}` });
  }
  const { settings, views, memory, inheritance } = config;
  if (settings !== undefined) {
    if (!isRecord(settings)) problems.add(at(pointer, 'settings'), 'settings must be an object');
    else {
      if ('governance' in settings) problems.add(at(pointer, 'settings', 'governance'), 'governance is a section of its own, not a setting', { code: 'governance_not_in_settings', atKey: true });
      problems.addAll(secretKeyProblems(settings, at(pointer, 'settings'), 'project settings'));
      if ('agentInstructions' in settings) problems.addAll(instructionsProblems(settings.agentInstructions, at(pointer, 'settings', 'agentInstructions')));
    }
  }
  if (views !== undefined) {
    if (!Array.isArray(views) || views.length > 50) problems.add(at(pointer, 'views'), 'views must be a list of at most 50 views');
    else problems.addAll(secretKeyProblems(views, at(pointer, 'views'), 'project views'));
  }
  if (config.governance !== undefined) governanceProblems(config.governance, at(pointer, 'governance'), problems);
  if (memory !== undefined) {
    if (!isRecord(memory)) problems.add(at(pointer, 'memory'), 'memory must be an object');
    else problems.addAll(secretKeyProblems(memory, at(pointer, 'memory'), 'project memory'));
  }
  if (inheritance !== undefined) {
    const keys = ['inheritableSettings', 'lockedSettings'];
    if (!isRecord(inheritance) || Object.keys(inheritance).some((key) => !keys.includes(key))) {
      problems.add(at(pointer, 'inheritance'), `inheritance has only ${listed(keys)}`);
    } else {
      for (const key of keys) {
        const list = inheritance[key];
        if (list !== undefined && !(Array.isArray(list) && list.every((item) => typeof item === 'string'))) problems.add(at(pointer, 'inheritance', key), `${key} must be a list of strings`);
      }
    }
  }
}

/** Governance of a project: the autonomy and the limits its runs keep to. */
function governanceProblems(governance: unknown, pointer: string, problems: Problems): void {
  if (!isRecord(governance)) return problems.add(pointer, 'governance must be an object', { code: 'invalid_governance' });
  for (const [key, value] of Object.entries(governance)) {
    const fits = GOVERNANCE[key];
    if (fits === undefined) problems.add(at(pointer, key), `unknown governance field '${key}'`, { code: 'unknown_governance_field', atKey: true, hint: `fields: ${Object.keys(GOVERNANCE).join(', ')}` });
    else if (!fits(value)) problems.add(at(pointer, key), `${key} must be ${EXPECTED[key]}`, { code: 'invalid_governance' });
  }
}
