/**
 * The core's domain validators (src/check/domain/) one form at a time: what the core accepts gives no problem
 * at all, and each mistake gives the core's code at the node that is wrong — more cases than the fixture table
 * can show one package each. The rules that report them are tried on odd specs at the end: they never throw.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentProblems, roleProblems } from '../../../src/check/domain/agent.js';
import { artifactTypeProblems } from '../../../src/check/domain/artifact-type.js';
import { calendarProblems } from '../../../src/check/domain/calendar.js';
import { connectionTypeProblems } from '../../../src/check/domain/connection-type.js';
import { jsonSchemaProblems } from '../../../src/check/domain/json-schema.js';
import type { DomainProblem } from '../../../src/check/domain/problems.js';
import { projectTemplateProblems } from '../../../src/check/domain/project-template.js';
import { conditionProblems } from '../../../src/check/domain/rule-condition.js';
import { skillProblems } from '../../../src/check/domain/skill.js';
import { taskTypeProblems } from '../../../src/check/domain/task-type.js';
import { workRuleProblems } from '../../../src/check/domain/work-rule.js';
import { runRules } from '../../../src/check/rule.js';
import { RULES } from '../../../src/check/rules/index.js';
import { loadTargets } from '../../../src/load/targets.js';

type Spec = Record<string, unknown>;
const found = (problems: readonly DomainProblem[]) => problems.map((p) => `${p.code} ${p.pointer}`);

const LIFECYCLE = {
  statuses: [
    { key: 'todo', category: 'active' },
    { key: 'doing', category: 'active' },
    { key: 'done', category: 'terminal_success' },
    { key: 'dropped', category: 'terminal_cancelled' },
  ],
  initialStatus: 'todo',
  transitions: [{ from: 'todo', to: ['doing', 'done', 'dropped'] }],
};
const taskType = (spec: Spec) => taskTypeProblems({ displayName: 'T', lifecycleSchema: LIFECYCLE, ...spec });

describe('task types', () => {
  it.each<[string, Spec]>([
    ['the system lifecycle', { lifecycleSchema: undefined }],
    ['a lifecycle with claim, release and completion statuses', { lifecycleSchema: { ...LIFECYCLE, claimStatus: 'doing', releaseStatus: 'todo', completionStatus: 'done' } }],
    ['self-edges, an empty to, edges out of terminal statuses', { lifecycleSchema: { ...LIFECYCLE, transitions: [{ from: 'todo', to: ['todo'] }, { from: 'doing', to: [] }, { from: 'done', to: ['todo'] }] } }],
    ['an execution with input paths', { execution: { skill: 'claims.classify', version: '1', inputs: { text: '$.customFields.text', first: '$.items[0]' } } }],
    ['an execution reading the custom fields', { execution: { skill: 'claims.classify', version: '1', inputs: '$.customFields' } }],
    ['a field schema', { fieldSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?P<x>a)$' } }, $defs: { b: { type: 'integer' } } } }],
    ['approval outcomes reading the task, the approval and the invocation', {
      approvalSchema: {
        gates: {
          default: {
            outcomes: {
              approved: [
                { invokeSkill: { skill: 'helpdesk.reply@1', inputs: { ticket: '$.task.customFields.ticketId!', nested: { n: 1, s: '$.task.title|truncate:80' } }, expect: { ok: true }, onSuccess: [{ completeTask: {} }], onFailure: [{ comment: { body: 'failed: $.invocation.error.message' } }] } },
              ],
              rejected: [{ comment: { body: 'Rejected by $.approval.decidedBy: $.approval.comment' } }, { transition: { status: 'dropped' } }],
            },
          },
        },
      },
    }],
    ['preconditions of approving', {
      approvalSchema: { gates: { default: { preconditions: { approved: [{ observation: { kind: 'payment.settled', task: '$.task.id!' }, condition: { eq: [{ var: 'observation.status' }, 'ok'] }, reason: 'waiting for the payment of $.task.publicId' }] }, outcomes: { approved: [] } } } },
    }],
    ['work after completion', {
      completionSchema: { onComplete: { when: ['$.task.customFields.depot'], actions: [{ ensureWork: { type: 'restock', key: 'restock:$.task.id', title: 'Restock $.task.title', relation: { spawned_by: '$.task.id' }, priority: 'high', customFields: { depot: '$.task.customFields.depot!' }, requestApproval: { assignee: 'role:stores' } } }] } },
    }],
    ['a context profile', { contextSchema: { anchors: [{ from: '$.customFields.customer', kind: 'customer', via: 'billed_to' }, { from: 'title', kinds: ['contract'] }], traverse: [{ relation: 'owns', direction: 'both', depth: 2, limit: 50, from: 'previous' }], asOf: 'now', budgetTokens: 4000 } }],
    ['artifact slots', { artifactSchema: { inputs: [{ key: 'draft', type: 'document', from: 'depends_on', required: true }], outputs: [{ key: 'final', type: 'document', mediaTypes: ['application/pdf', 'text/*'], content: 'optional' }] } }],
    ['acceptance checks of every kind', { acceptance: [
      { key: 'tests', kind: 'deterministic', description: 'Tests pass', spec: { skill: 'ci.run@2', inputs: { x: 1 }, expect: { ok: true } } },
      { key: 'report', kind: 'deterministic', description: 'A report', spec: { artifact: { type: 'report', mediaTypes: ['text/markdown'] } } },
      { key: 'deployed', kind: 'external_state', description: 'Deployed', spec: { event: 'deploy.done' } },
      { key: 'approved', kind: 'human', description: 'Approved', spec: { approverRole: 'role:leads' } },
      { key: 'judged', kind: 'llm_judge', description: 'Judged', spec: { rubric: 'clear' } },
      { key: 'plain', kind: 'human', description: 'Someone' },
    ] }],
    ['executor roles', { executorRoles: ['reviewers', 'qa'] }],
    ['instructions', { instructions: 'Rotate the API key before you start.' }],
  ])('accepts %s', (_name, spec) => expect(found(taskType(spec))).toEqual([]));

  it.each<[string, Spec, string[]]>([
    ['an empty lifecycle', { lifecycleSchema: { statuses: [] } }, ['invalid_lifecycle_schema /spec/lifecycleSchema/statuses']],
    ['a repeated status, a project category, an undeclared initial status', {
      lifecycleSchema: { statuses: [{ key: 'todo', category: 'active' }, { key: 'todo', category: 'planned' }, { key: 'done', category: 'terminal_success' }], initialStatus: 'nope' },
    }, ['invalid_lifecycle_schema /spec/lifecycleSchema/statuses/1/key', 'invalid_lifecycle_schema /spec/lifecycleSchema/statuses/1/category', 'invalid_lifecycle_schema /spec/lifecycleSchema/initialStatus']],
    ['transitions to undeclared statuses, a repeated source', { lifecycleSchema: { ...LIFECYCLE, transitions: [{ from: 'todo', to: ['gone'] }, { from: 'todo', to: [] }, { from: 'x', to: [] }] } }, [
      'invalid_lifecycle_schema /spec/lifecycleSchema/transitions/0/to/0',
      'invalid_lifecycle_schema /spec/lifecycleSchema/transitions/1/from',
      'invalid_lifecycle_schema /spec/lifecycleSchema/transitions/2/from',
    ]],
    ['a terminal claim status, a completion status of another category', { lifecycleSchema: { ...LIFECYCLE, claimStatus: 'done', completionStatus: 'doing' } }, [
      'invalid_lifecycle_schema /spec/lifecycleSchema/claimStatus',
      'invalid_lifecycle_schema /spec/lifecycleSchema/completionStatus',
    ]],
    ['no terminal_success status', { lifecycleSchema: { statuses: [{ key: 'todo', category: 'active' }], initialStatus: 'todo' } }, ['invalid_lifecycle_schema /spec/lifecycleSchema/statuses']],
    ['two terminal_success statuses without completionStatus', { lifecycleSchema: { statuses: [{ key: 'a', category: 'terminal_success' }, { key: 'b', category: 'terminal_success' }], initialStatus: 'a' } }, ['invalid_lifecycle_schema /spec/lifecycleSchema/completionStatus']],
    ['an execution naming a version in the skill, without a version, with a bad path', { execution: { skill: 'a@1', inputs: { 'bad name': 'customFields' } } }, [
      'invalid_task_execution /spec/execution/skill',
      'invalid_task_execution /spec/execution/version',
      'invalid_task_execution /spec/execution/inputs/bad name',
      'invalid_task_execution /spec/execution/inputs/bad name',
    ]],
    ['a field schema with a remote $ref and a wrong type', { fieldSchema: { type: 'strin', properties: { a: { $ref: 'other.json' }, b: { minLength: -1 } } } }, [
      'invalid_json_schema /spec/fieldSchema/properties/a/$ref',
      'invalid_json_schema /spec/fieldSchema/type',
      'invalid_json_schema /spec/fieldSchema/properties/b/minLength',
    ]],
    ['a gate other than default, an unknown action, a secret-named input', { approvalSchema: { gates: { second: { outcomes: { approved: [{ notify: {} }, { invokeSkill: { skill: 's@1', inputs: { apiToken: 'x' } } }] } } } } }, [
      'secret_material_rejected /spec/approvalSchema/gates/second/outcomes/approved/1/invokeSkill/inputs/apiToken',
      'invalid_approval_schema /spec/approvalSchema/gates/second',
      'invalid_approval_schema /spec/approvalSchema/gates/second/outcomes/approved/0/notify',
    ]],
    ['expressions the grammar does not have', { approvalSchema: { gates: { default: { outcomes: { approved: [{ comment: { body: '$.task.owner and $.invocation.id and $.task.title|truncate:0' } }] } } } } }, [
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/approved/0/comment/body',
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/approved/0/comment/body',
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/approved/0/comment/body',
    ]],
    ['closing the task before and after invoking a skill, a reaction invoking again', { approvalSchema: { gates: { default: { outcomes: {
      approved: [{ completeTask: {} }, { invokeSkill: { skill: 's@1', onSuccess: [{ invokeSkill: { skill: 't@1' } }] } }],
      rejected: [{ invokeSkill: { skill: 's@1' } }, { transition: { status: 'dropped' } }, { transition: { status: 'nowhere' } }],
    } } } } }, [
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/approved/1/invokeSkill/onSuccess/0/invokeSkill',
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/approved/1',
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/rejected/1',
      'invalid_approval_schema /spec/approvalSchema/gates/default/outcomes/rejected/2/transition/status',
    ]],
    ['a completion that invokes a skill and reads the approval', { completionSchema: { onComplete: { actions: [{ invokeSkill: { skill: 's@1' } }, { comment: { body: 'by $.approval.decidedBy' } }] } } }, [
      'invalid_completion_schema /spec/completionSchema/onComplete/actions/0/invokeSkill',
      'invalid_completion_schema /spec/completionSchema/onComplete/actions/1/comment/body',
    ]],
    ['a relation of the wrong name, a literal type that is no key', { completionSchema: { onComplete: { actions: [{ ensureWork: { type: 'Parts Request', key: 'k', title: 't', relation: { spawnedBy: '$.task.id' } } }] } } }, [
      'invalid_completion_schema /spec/completionSchema/onComplete/actions/0/ensureWork/type',
      'invalid_completion_schema /spec/completionSchema/onComplete/actions/0/ensureWork/relation',
    ]],
    ['a context profile with both kind and kinds, a depth of 9', { contextSchema: { anchors: [{ from: '$.task.title!', kind: 'a', kinds: ['b'] }], traverse: [{ relation: 'owns', depth: 9 }], budgetTokens: true } }, [
      'invalid_context_schema /spec/contextSchema/anchors/0/from',
      'invalid_context_schema /spec/contextSchema/anchors/0',
      'invalid_context_schema /spec/contextSchema/traverse/0/depth',
      'invalid_context_schema /spec/contextSchema/budgetTokens',
    ]],
    ['instructions with a token', { instructions: 'Use ghp_0123456789abcdefghijABCDEFGHIJ to push.' }, ['secret_material_rejected /spec/instructions']],
    ['instructions over 16 KiB', { instructions: 'x'.repeat(16 * 1024 + 1) }, ['instructions_too_large /spec/instructions']],
    ['artifact slots with a repeated key, mediaTypes on an input, a bad pattern', { artifactSchema: { inputs: [{ key: 'a', type: 'doc', from: 'parent', mediaTypes: ['*/*'] }, { key: 'a', type: 'doc', from: 'parent' }], outputs: [{ key: 'b', type: 'doc', mediaTypes: ['*/pdf'] }] } }, [
      'invalid_artifact_schema /spec/artifactSchema/inputs/0/mediaTypes',
      'invalid_artifact_schema /spec/artifactSchema/inputs/1/key',
      'invalid_artifact_schema /spec/artifactSchema/outputs/0/mediaTypes/0',
    ]],
    ['acceptance checks with a repeated key and specs outside their grammar', { acceptance: [
      { key: 'a', kind: 'deterministic', description: 'x', spec: { skill: 'ci.run' } },
      { key: 'a', kind: 'human', description: 'x', spec: { approver: 'p', approverRole: 'role:r' } },
      { key: 'c', kind: 'external_state', description: 'x', spec: { rubric: 'r' } },
    ] }, [
      'invalid_acceptance_spec /spec/acceptance/0/spec/skill',
      'duplicate_check_key /spec/acceptance/1/key',
      'invalid_acceptance_spec /spec/acceptance/1/spec',
      'invalid_acceptance_spec /spec/acceptance/2/spec/rubric',
    ]],
    ['executor roles of one character, repeated', { executorRoles: ['a', 'qa', 'qa'] }, ['invalid_executor_roles /spec/executorRoles/0', 'invalid_executor_roles /spec/executorRoles/2']],
  ])('refuses %s', (_name, spec, expected) => expect(found(taskType(spec))).toEqual(expected));

  it('guards the size and depth of stored documents', () => {
    let deep: unknown = {};
    for (let i = 0; i < 21; i++) deep = { a: deep };
    expect(found(jsonSchemaProblems({ default: deep }, '/spec/fieldSchema', { label: 'fieldSchema' }))).toEqual(['payload_too_deep /spec/fieldSchema']);
    expect(found(jsonSchemaProblems({ enum: Array.from({ length: 5000 }, (_, i) => i) }, '/spec/fieldSchema', { label: 'fieldSchema' }))).toEqual(['payload_too_large /spec/fieldSchema']);
  });
});

const RULE = { trigger: { kind: 'observation', type: 'claim.escalated' }, action: { kind: 'ensure_work', taskType: 'claim-decision', dedupKeyTemplate: 'c:{{payload.id}}', fields: { title: 'Decide {{payload.id}}' } } };
const rule = (spec: Spec, key = 'claim-escalated') => workRuleProblems(key, { ...RULE, ...spec });

describe('work rules', () => {
  it.each<[string, Spec]>([
    ['an observation rule', {}],
    ['a condition of every operator', { condition: { and: [{ or: [{ eq: [{ var: 'payload.a' }, 'x'] }, { ne: [{ var: 'payload.b' }, null] }] }, { not: { exists: 'payload.c' } }, { in: [{ var: 'payload.d' }, ['a', 'b']] }, { lt: [1, { var: 'settings.limit' }] }, { ge: [{ const: 3 }, 2] }, true] } }],
    ['a boolean condition', { condition: false }],
    ['an event trigger', { trigger: { kind: 'event', type: 'task.completed' } }],
    ['a schedule with an interpretation', { trigger: { kind: 'schedule', type: 'interval', everySeconds: 3600 }, interpretation: { skill: 'digest.build@1', inputs: {} } }],
    ['an interpretation read by the action', { interpretation: { skill: 'claims.classify@1', inputs: { text: '{{payload.text}}' } }, action: { ...RULE.action, fields: { title: '{{skill.output.title}}', customFields: { category: '{{skill.output.category}}' } } } }],
    ['forEach with where over items', { action: { ...RULE.action, forEach: 'payload.items', where: { eq: [{ var: 'item.kind' }, 'a'] }, taskType: '{{item.type}}', taskTypes: ['a', 'b'], dedupKeyTemplate: 'x:{{item.id}}' } }],
    ['a decision by a role', { action: { kind: 'request_decision', taskType: 't', dedupKeyTemplate: 'd:{{payload.id}}', fields: { title: 'Decide', approverRole: 'role:leads' } } }],
    ['completing the task of the observation', { trigger: { kind: 'observation', type: 'review.done', agent: 'reviewer' }, action: { kind: 'complete_work', target: 'task', taskTypes: ['review'] } }],
    ['cancelling work by its key', { action: { kind: 'cancel_work', dedupKeyTemplate: 'c:{{payload.id}}' } }],
    ['relations of the work it creates', { action: { ...RULE.action, fields: { title: 't', relations: { spawnedBy: '{{payload.taskId}}', dependsOn: ['a:{{payload.id}}'] } } } }],
  ])('accepts %s', (_name, spec) => expect(found(rule(spec))).toEqual([]));

  it.each<[string, Spec, string[]]>([
    ['a goal', { goalId: '7c0e…' }, ['invalid_rule /spec/goalId']],
    ['an unknown trigger kind', { trigger: { kind: 'webhook' } }, ['invalid_rule_trigger /spec/trigger/kind']],
    ['an event trigger on what rules do and on observations', { trigger: { kind: 'event', type: 'rule.evaluated' } }, ['invalid_rule_trigger /spec/trigger/type']],
    ['an observation trigger with members of an event', { trigger: { kind: 'observation', type: 'Claim', everySeconds: 60, actorId: 'me' } }, [
      'invalid_rule_trigger /spec/trigger/everySeconds',
      'invalid_rule_trigger /spec/trigger/type',
      'invalid_rule_trigger /spec/trigger/actorId',
    ]],
    ['a schedule too frequent, creating work without an interpretation', { trigger: { kind: 'schedule', type: 'interval', everySeconds: 10 } }, ['invalid_rule_trigger /spec/trigger/everySeconds', 'invalid_rule /spec/interpretation']],
    ['a CEL condition', { condition: { expr: "payload.kind == 'x'" } }, ['invalid_rule_condition /spec/condition/expr']],
    ['two operators in one node, a comparison of three, a path of data', { condition: { and: [{ eq: [1, 1], ne: [1, 2] }, { gt: [1, 2, 3] }, { exists: 'data.x' }, { eq: [{ var: 'payload.a b' }, 1] }] } }, [
      'invalid_rule_condition /spec/condition/and/0',
      'invalid_rule_condition /spec/condition/and/1/gt',
      'invalid_rule_condition /spec/condition/and/2/exists',
      'invalid_rule_condition /spec/condition/and/3/eq/0/var',
    ]],
    ['a secret in a const', { condition: { eq: [{ var: 'payload.a' }, { const: { password: 'x' } }] } }, ['secret_material_rejected /spec/condition/eq/1/const/password']],
    ['skill. in a rule without interpretation, item outside forEach', { action: { ...RULE.action, fields: { title: '{{skill.output.x}} {{item.y}}' } } }, [
      'invalid_rule_action /spec/action/fields/title',
      'invalid_rule_action /spec/action/fields/title',
    ]],
    ['an unpinned interpretation skill, a secret-named input', { interpretation: { skill: 'claims.classify', inputs: { apiToken: '{{payload.t}}' } } }, [
      'secret_material_rejected /spec/interpretation/inputs/apiToken',
      'invalid_rule_interpretation /spec/interpretation/skill',
    ]],
    ['where without forEach', { action: { ...RULE.action, where: { eq: [1, 1] } } }, ['invalid_rule_action /spec/action/where']],
    ['a templated taskType without taskTypes, a literal outside them', { action: { ...RULE.action, taskType: '{{payload.type}}' } }, ['invalid_rule_action /spec/action/taskType']],
    ['ensure_work without a title, with approverRole', { action: { ...RULE.action, fields: { approverRole: 'role:x' } } }, ['invalid_rule_action /spec/action/fields/title', 'invalid_rule_action /spec/action/fields/approverRole']],
    ['complete_work with fields and a taskType', { action: { kind: 'complete_work', taskType: 't', dedupKeyTemplate: 'k', fields: { title: 'x' } } }, ['invalid_rule_action /spec/action/taskType', 'invalid_rule_action /spec/action/fields']],
    ['target: task without taskTypes, on an event, with a dedup key', { trigger: { kind: 'event', type: 'task.completed' }, action: { kind: 'cancel_work', target: 'task', dedupKeyTemplate: 'k' } }, [
      'invalid_rule_action /spec/action/dedupKeyTemplate',
      'invalid_rule_action /spec/action',
      'invalid_rule_action /spec/action/target',
    ]],
    ['target: task without an author filter', { action: { kind: 'complete_work', target: 'task', taskTypes: ['t'] } }, ['invalid_rule_trigger /spec/trigger/agent']],
    ['a key the core refuses', {}, ['invalid_rule /key']],
  ])('refuses %s', (name, spec, expected) => expect(found(rule(spec, name === 'a key the core refuses' ? 'Claim Escalated' : undefined))).toEqual(expected));

  it('bounds the size and depth of a condition', () => {
    let deep: unknown = true;
    for (let i = 0; i < 17; i++) deep = { not: deep };
    expect(found(conditionProblems(deep, '/spec/condition', ['payload']))).toEqual([`invalid_rule_condition /spec/condition${'/not'.repeat(16)}`]);
    const wide = { and: Array.from({ length: 50 }, () => ({ and: Array.from({ length: 5 }, () => true) })) };
    expect(found(conditionProblems(wide, '/spec/condition', ['payload']))).toEqual(['invalid_rule_condition /spec/condition']);
  });
});

const CONNECTION = {
  version: 1,
  displayName: 'Helpdesk',
  auth: ['oauth2', 'token'],
  oauth2: { authorizeUrl: 'https://auth.helpdesk.example/authorize', tokenUrlTemplate: 'https://{account}.helpdesk.example/oauth/token', accountParam: 'subdomain', authStyle: 'in_params', scopes: ['read'] },
  accountField: { title: 'Subdomain', pattern: '^[a-z0-9-]+$' },
  settingsSchema: { type: 'object', properties: { baseUrl: { type: 'string' }, secretRef: { type: 'string' } } },
  defaultKey: 'helpdesk',
};

describe('connection types', () => {
  it('accepts a type with oauth2 and a token', () => expect(found(connectionTypeProblems(CONNECTION))).toEqual([]));
  it('drops null members', () => expect(found(connectionTypeProblems({ ...CONNECTION, description: null, oauth2: { ...CONNECTION.oauth2, accountParam: 'subdomain' } }))).toEqual([]));
  it.each<[string, Spec, string[]]>([
    ['an unknown member, a setting named like a secret, a JWT in a description', { extra: 1, settingsSchema: { type: 'object', properties: { clientSecret: { type: 'string' } } }, description: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w' }, [
      'invalid_request /spec/extra',
      'secret_material_rejected /spec/description',
      'secret_material_rejected /spec/settingsSchema/properties/clientSecret',
    ]],
    ['oauth2 without auth naming it, an http consent page, a token host that is an IP', { auth: ['token'], oauth2: { ...CONNECTION.oauth2, authorizeUrl: 'http://x.example/a', tokenUrlTemplate: 'https://10.0.0.1/token' } }, [
      'invalid_connection_type /spec/oauth2',
      'invalid_connection_type /spec/oauth2/authorizeUrl',
      'invalid_connection_type /spec/oauth2/tokenUrlTemplate',
    ]],
    ['an account pattern that does not compile, no default key', { accountField: { title: 'A', pattern: '([a-z' }, defaultKey: undefined }, ['invalid_connection_type /spec/accountField/pattern', 'invalid_connection_type /spec/defaultKey']],
  ])('refuses %s', (_name, spec, expected) => expect(found(connectionTypeProblems({ ...CONNECTION, ...spec }))).toEqual(expected));
});

const SKILL = {
  version: '1',
  sideEffects: 'external_write',
  riskLevel: 'medium',
  contract: { inputs: { type: 'object' }, outputs: { $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'object' }, idempotency: 'required', retryPolicy: { maxAttempts: 3 }, implementation: { protocol: 'local', entrypoint: 'helpdesk.skills:reply' } },
};

describe('skills', () => {
  it('accepts a contract', () => expect(found(skillProblems(SKILL))).toEqual([]));
  it('accepts a skill without a contract', () => expect(found(skillProblems({ version: '1', inputSchema: { type: 'object' } }))).toEqual([]));
  it.each<[string, Spec, string[]]>([
    ['retries of an external write without idempotency', { contract: { ...SKILL.contract, idempotency: 'none' } }, ['invalid_skill_contract /spec/contract/retryPolicy/maxAttempts']],
    ['no policy columns, preconditions, an http skill without an http endpoint', { sideEffects: undefined, riskLevel: undefined, contract: { ...SKILL.contract, preconditions: ['x'], implementation: { protocol: 'http', endpoint: 'ftp://x' } } }, [
      'invalid_skill /spec',
      'invalid_skill /spec',
      'unsupported_skill_condition /spec/contract/preconditions',
      'invalid_skill_contract /spec/contract/implementation/endpoint',
    ]],
    ['an older draft, secrets in the auth', { contract: { ...SKILL.contract, inputs: { $schema: 'http://json-schema.org/draft-07/schema#' }, implementation: { protocol: 'mcp', entrypoint: 'reply', auth: { token: 'x', scopes: ['read'] } } } }, [
      'invalid_skill_contract /spec/contract/inputs/$schema',
      'secret_material_rejected /spec/contract/implementation/auth/token',
    ]],
  ])('refuses %s', (_name, spec, expected) => expect(found(skillProblems({ ...SKILL, ...spec }))).toEqual(expected));
});

describe('calendars', () => {
  const calendar = { displayName: 'Office', timezone: 'Europe/Moscow', years: [{ year: 2026, holidays: ['2026-01-01'], workdays: ['2026-01-03'], shortDays: ['2026-12-31'] }], workingHours: { intervals: [{ from: '09:00', to: '13:00' }, { from: '14:00', to: '18:00' }], weekdays: { '6': [] }, shortDayReduction: 'PT1H' } };
  it('accepts a calendar', () => expect(found(calendarProblems(calendar))).toEqual([]));
  it.each(['UTC', 'US/Eastern', 'Etc/GMT+3', 'America/Argentina/Buenos_Aires'])('knows the time zone %s', (timezone) => expect(found(calendarProblems({ ...calendar, timezone }))).toEqual([]));
  it.each(['utc', 'europe/moscow', 'Mars/Olympus'])('does not know the time zone %s', (timezone) => expect(found(calendarProblems({ ...calendar, timezone }))).toEqual(['unknown_timezone /spec/timezone']));
  it('refuses years, days and hours the core refuses', () => {
    expect(found(calendarProblems({
      ...calendar,
      years: [{ year: 2026, holidays: ['2026-05-01', '2027-01-01'], workdays: ['2026-05-01'] }, { year: 2026 }],
      workingHours: { intervals: [{ from: '09:00', to: '13:00' }, { from: '12:00', to: '12:00' }, { from: '24:00', to: '24:00' }], shortDayReduction: 'PT30S' },
    }))).toEqual([
      'calendar_date_outside_year /spec/years/0/holidays/1',
      'calendar_day_conflict /spec/years/0',
      'duplicate_calendar_year /spec/years/1',
      'invalid_working_hours /spec/workingHours/intervals/1',
      'invalid_working_hours /spec/workingHours/intervals/2/from',
      'invalid_working_hours /spec/workingHours/shortDayReduction',
    ]);
  });
});

describe('the other kinds', () => {
  it('artifact types', () => {
    expect(found(artifactTypeProblems({ displayName: 'A', mediaTypes: ['application/pdf'], maxBytes: 10 }))).toEqual([]);
    expect(found(artifactTypeProblems({ displayName: 'A', metadataSchema: { type: 7 }, mediaTypes: [], maxBytes: 0 }))).toEqual([
      'invalid_artifact_type /spec/metadataSchema/type',
      'invalid_artifact_type /spec/mediaTypes',
      'invalid_artifact_type /spec/maxBytes',
    ]);
  });
  it('project templates', () => {
    const lifecycle = { statuses: [{ key: 'planned', category: 'planned' }, { key: 'done', category: 'terminal_success' }], initialStatus: 'planned' };
    expect(found(projectTemplateProblems({ displayName: 'P', lifecycleSchema: lifecycle, defaultConfig: { settings: { agentInstructions: 'Be brief.' }, governance: { maxAutonomyLevel: 'assisted', maxConcurrentRuns: null }, inheritance: { lockedSettings: ['a'] } } }))).toEqual([]);
    expect(found(projectTemplateProblems({
      displayName: 'P',
      lifecycleSchema: { ...lifecycle, statuses: [{ key: 'planned', category: 'blocked' }] },
      defaultConfig: { settings: { governance: {}, apiKey: 'x' }, governance: { maxAutonomyLevel: 3, speed: 1 }, extra: {} },
    }))).toEqual([
      'invalid_lifecycle_schema /spec/lifecycleSchema/statuses/0/category',
      'unknown_config_section /spec/defaultConfig/extra',
      'governance_not_in_settings /spec/defaultConfig/settings/governance',
      'secret_material_rejected /spec/defaultConfig/settings/apiKey',
      'invalid_governance /spec/defaultConfig/governance/maxAutonomyLevel',
      'unknown_governance_field /spec/defaultConfig/governance/speed',
    ]);
  });
  it('agents and roles', () => {
    expect(found(agentProblems({ spec: { displayName: 'A', identity: { kind: 'agent', roles: ['qa'] }, placement: { resources: { cpus: 1, memoryMb: 512 } } } }))).toEqual([]);
    expect(found(agentProblems({ spec: { identity: { roles: ['q'] }, placement: { resources: { cpus: 65, memoryMb: 32 } }, skills: { concurrency: 33 } } }))).toEqual([
      'invalid_agent /spec/identity/roles/0',
      'invalid_agent /spec/placement/resources/cpus',
      'invalid_agent /spec/placement/resources/memoryMb',
      'invalid_agent /spec/skills/concurrency',
    ]);
    expect(found(roleProblems('q'))).toEqual(['invalid_role /key']);
    expect(found(roleProblems('qa'))).toEqual([]);
  });
});

describe('the rules of the core on specs the schema would refuse', () => {
  const root = mkdtempSync(join(tmpdir(), 'odd-core-specs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const object = (kind: string, key: string, spec: string) => `apiVersion: taimen.ai/v1\nkind: ${kind}\nkey: ${key}\nspec:\n${spec}\n`;

  it('report what they can and never throw', async () => {
    write('packages/odd/package.yaml', object('Package', 'odd', '  version: 1.0.0'));
    const odd = ['5', '[]', '{a: [1, {b: null}]}', 'null', '"text"'];
    const kinds = ['TaskType', 'WorkRule', 'Agent', 'Calendar', 'Skill', 'ConnectionType', 'ArtifactType', 'ProjectTemplate', 'WorkspaceType', 'NotificationRule', 'Role'];
    const fields = ['lifecycleSchema', 'approvalSchema', 'completionSchema', 'contextSchema', 'artifactSchema', 'acceptance', 'execution', 'trigger', 'condition', 'action', 'interpretation', 'contract', 'oauth2', 'accountField', 'settingsSchema', 'years', 'workingHours', 'defaultConfig', 'metadataSchema', 'identity', 'placement', 'on'];
    kinds.forEach((kind, k) => odd.forEach((value, v) => write(`packages/odd/o/${k}-${v}.yaml`, object(kind, `o${k}-${v}`, fields.map((field) => `  ${field}: ${value}`).join('\n')))));
    const workspace = await loadTargets({ cwd: root });
    expect(workspace.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(() => runRules(workspace, RULES, new Set())).not.toThrow();
  });
});
