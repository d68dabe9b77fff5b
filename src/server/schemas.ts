/**
 * The component schemas of the local core's OpenAPI document: request bodies (every request is
 * validated against them) and answers. They follow the real core's field names, types and limits
 * (compat-package-sdk-install §6, the core's OpenAPI slices). They make docs/core-openapi.json, which the
 * contract tests check requests and answers against; the conformance suite holds it against the real slices.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const bool: Schema = { type: 'boolean' };
const anyObject: Schema = { type: 'object', additionalProperties: true };
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
const uuid = str({ format: 'uuid' });
const dateTime = str({ format: 'date-time' });
const catalogKey = str({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9][a-z0-9_-]*$' });
const slug = str({ minLength: 2, maxLength: 63, pattern: '^[a-z0-9][a-z0-9-]*$' });
const agentKey = str({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9][a-z0-9-]*$' });

/** A closed object: the request schemas of the core forbid unknown fields. */
function closed(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', additionalProperties: false, properties, required };
}

/** An answer: the fields a client may rely on; more may follow. */
function answer(properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, required };
}

const page = (item: string): Schema => answer({ items: list(ref(item)), nextCursor: nullable(str()) });

const packageLink = nullable(ref('PackageLinkOut'));

/** The fields of a work rule that a PATCH may change. */
const ruleFields: Record<string, Schema> = {
  description: str({ maxLength: 2000 }),
  trigger: anyObject,
  condition: { anyOf: [anyObject, bool, { type: 'null' }] },
  interpretation: nullable(anyObject),
  action: anyObject,
  identity: nullable(ref('RuleIdentitySpec')),
};

const requests: Record<string, Schema> = {
  PackageFile: closed({ path: str({ minLength: 1, maxLength: 500 }), content: str({ maxLength: 1_000_000 }) }, ['path', 'content']),
  PackageSource: closed({ files: list(ref('PackageFile'), { minItems: 1, maxItems: 1000 }) }, ['files']),
  PackagePlanRequest: closed(
    { package: ref('PackageSource'), replayLimit: int({ minimum: 0, maximum: 200, default: 50 }), workspaceId: nullable(uuid), overwriteConsole: { ...bool, default: false } },
    ['package'],
  ),
  PackageApplyRequest: closed(
    { package: ref('PackageSource'), planHash: str({ pattern: '^sha256:[0-9a-f]{64}$' }), workspaceId: nullable(uuid), overwriteConsole: { ...bool, default: false } },
    ['package', 'planHash'],
  ),
  PackageTestRequest: closed({ package: ref('PackageSource'), tests: list(str({ minLength: 1, maxLength: 500 }), { maxItems: 500 }), workspaceId: nullable(uuid) }, ['package']),
  PackageRef: closed({ key: str({ minLength: 1, maxLength: 200 }), version: str({ minLength: 1, maxLength: 100 }) }, ['key', 'version']),
  PackageRecordedObject: closed(
    {
      kind: str({ enum: ['ArtifactType', 'TaskType', 'ProjectTemplate', 'WorkspaceType', 'Role', 'Capability', 'ConnectionType', 'Skill', 'WorkRule', 'Agent'] }),
      key: str({ minLength: 1, maxLength: 200 }),
    },
    ['kind', 'key'],
  ),
  PackageRecordRequest: closed(
    { package: ref('PackageRef'), installHash: nullable(str({ maxLength: 200 })), objects: list(ref('PackageRecordedObject'), { minItems: 1, maxItems: 1000 }) },
    ['package', 'objects'],
  ),
  CatalogRetireRequest: closed({ reason: str({ minLength: 1, maxLength: 500 }) }, ['reason']),
  // `name` and `version` are the core's to check (422 pack_invalid), the rest of the manifest is the memory service's.
  KnowledgePackRegisterRequest: { type: 'object', additionalProperties: true, properties: { name: {}, version: {}, scope: nullable(str({ enum: ['common', 'tenant'] })) } },
  WorkspaceKnowledgePacksRequest: closed({ packs: list(str({ minLength: 1, maxLength: 128 }), { maxItems: 64 }), strict: { ...bool, default: false } }, ['packs']),
  AcceptanceCheckSpec: closed(
    {
      key: str({ minLength: 1, maxLength: 63 }),
      kind: str({ enum: ['deterministic', 'external_state', 'human', 'llm_judge'] }),
      description: str({ minLength: 1, maxLength: 2000 }),
      spec: nullable(anyObject),
      when: nullable(list(str({ minLength: 1, maxLength: 500 }), { minItems: 1, maxItems: 8 })),
    },
    ['key', 'kind', 'description'],
  ),
  TaskTypeCreateRequest: closed(
    {
      key: catalogKey,
      displayName: str({ minLength: 1, maxLength: 200 }),
      description: str(),
      fieldSchema: anyObject,
      lifecycleSchema: nullable(anyObject),
      approvalSchema: anyObject,
      contextSchema: anyObject,
      completionSchema: anyObject,
      artifactSchema: anyObject,
      instructions: str(),
      execution: nullable(anyObject),
      executorRoles: list(slug, { maxItems: 20 }),
      acceptance: list(ref('AcceptanceCheckSpec'), { maxItems: 50 }),
    },
    ['key', 'displayName'],
  ),
  ProjectTemplateCreateRequest: closed(
    {
      key: catalogKey,
      displayName: str({ minLength: 1, maxLength: 200 }),
      description: str(),
      fieldSchema: anyObject,
      lifecycleSchema: nullable(anyObject),
      defaultConfig: anyObject,
      defaultViews: list({}, { maxItems: 50 }),
      governanceSchema: anyObject,
      memoryDefaults: anyObject,
    },
    ['key', 'displayName'],
  ),
  ArtifactTypeCreateRequest: closed(
    {
      key: catalogKey,
      displayName: str({ minLength: 1, maxLength: 200 }),
      description: str({ maxLength: 2000 }),
      metadataSchema: anyObject,
      mediaTypes: list({}),
      maxBytes: nullable(int()),
    },
    ['key', 'displayName', 'mediaTypes'],
  ),
  WorkspaceTypeCreateRequest: closed(
    { key: catalogKey, displayName: str({ minLength: 1, maxLength: 200 }), description: str(), fieldSchema: anyObject, allowedChildTypes: nullable(list(str(), { maxItems: 100 })) },
    ['key', 'displayName'],
  ),
  WorkspaceTypePatchRequest: closed({ displayName: str({ minLength: 1, maxLength: 200 }), description: str(), fieldSchema: anyObject, allowedChildTypes: nullable(list(str(), { maxItems: 100 })) }),
  CapabilityCreateRequest: closed({ name: str({ minLength: 1, maxLength: 200 }), description: str() }, ['name']),
  RoleCreateRequest: closed({ slug, name: str({ minLength: 1, maxLength: 200 }), description: str(), workspaceId: nullable(uuid) }, ['slug', 'name']),
  RolePatchRequest: closed({ name: str({ minLength: 1, maxLength: 200 }), description: str() }),
  SkillRegisterRequest: closed(
    {
      name: str({ minLength: 1, maxLength: 200 }),
      version: str({ minLength: 1, maxLength: 50, default: '1.0.0' }),
      description: str(),
      protocol: nullable(str()),
      sideEffects: nullable(str()),
      riskLevel: nullable(str()),
      contract: nullable(anyObject),
      config: anyObject,
      inputSchema: nullable(anyObject),
      outputSchema: nullable(anyObject),
    },
    ['name'],
  ),
  SkillPatchRequest: closed({ description: str(), config: anyObject, inputSchema: nullable(anyObject), outputSchema: nullable(anyObject), endpoint: str({ minLength: 1, maxLength: 2000 }) }),
  ConnectionTypeCreateRequest: closed(
    {
      key: catalogKey,
      // The reference types a connection type's version as an integer (a skill's is a string).
      version: int({ minimum: 1 }),
      spec: closed({ displayName: str(), description: str(), auth: list(str({ enum: ['oauth2', 'token'] })), oauth2: nullable(anyObject), accountField: nullable(anyObject), settingsSchema: anyObject, defaultKey: nullable(str()) }),
    },
    ['key', 'version', 'spec'],
  ),
  ConnectionTypePatchRequest: closed({ status: str({ enum: ['active', 'deprecated', 'disabled'] }) }, ['status']),
  AgentExecutorSpec: closed({ kind: str({ minLength: 1, maxLength: 63, pattern: '^[a-z][a-z0-9-]*$' }), instructions: str({ maxLength: 65536 }), params: anyObject }, ['kind']),
  AgentIamSpec: closed(
    {
      audiences: list(str({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20 }),
      scopeCeiling: list(str({ maxLength: 200, pattern: '^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$' }), { minItems: 1, maxItems: 50 }),
    },
    ['audiences', 'scopeCeiling'],
  ),
  AgentIdentitySpec: closed(
    {
      kind: str({ enum: ['agent', 'service'] }),
      permissions: list(str({ pattern: '^[a-z_]+(\\.[a-z_]+)+$' }), { minItems: 1, maxItems: 200 }),
      capabilities: list(str({ minLength: 1, maxLength: 200 }), { maxItems: 200 }),
      roles: list(slug, { maxItems: 200 }),
      iam: nullable(ref('AgentIamSpec')),
    },
    ['kind', 'permissions'],
  ),
  AgentPlacementSpec: closed({
    replicas: int({ minimum: 0, maximum: 20 }),
    drainSeconds: int({ minimum: 0, maximum: 14400 }),
    requires: list(str({ maxLength: 100, pattern: '^[a-z0-9][a-z0-9.-]*(=[a-zA-Z0-9._-]+)?$' }), { maxItems: 200 }),
    secrets: list(str({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), { maxItems: 200 }),
    resources: nullable(closed({ cpus: nullable({ type: 'number', exclusiveMinimum: 0, maximum: 64 }), memoryMb: nullable(int({ minimum: 64, maximum: 262144 })) })),
  }),
  AgentSkillsSpec: closed({
    protocols: list(str({ enum: ['local', 'http', 'mcp'] })),
    local: list(str({ pattern: '^[A-Za-z_][\\w.]*(:[A-Za-z_]\\w*)?$' }), { maxItems: 200 }),
    httpOrigins: list(str({ minLength: 1, maxLength: 500 }), { maxItems: 200 }),
    mcpOrigins: list(str({ minLength: 1, maxLength: 500 }), { maxItems: 200 }),
    audiences: list(str({ minLength: 1, maxLength: 100 }), { maxItems: 200 }),
    concurrency: nullable(int({ minimum: 1, maximum: 32 })),
    invoke: list(str({ maxLength: 251, pattern: '^[^@\\s/]{1,200}@[^@\\s/]{1,50}$' }), { maxItems: 200 }),
  }),
  AgentWorkSpec: closed({
    workspace: nullable(str({ minLength: 1, maxLength: 200 })),
    project: nullable(str({ minLength: 1, maxLength: 200 })),
    includeSubprojects: bool,
    onlyAssigned: bool,
    taskTypes: list(catalogKey, { maxItems: 200 }),
  }),
  AgentWorkingCopySpec: closed(
    {
      repository: str({ minLength: 1, maxLength: 500 }),
      baseRef: nullable(str({ minLength: 1, maxLength: 200 })),
      directory: nullable(str({ pattern: '^[a-z0-9][a-z0-9._-]*$' })),
      superproject: nullable(str({ minLength: 1, maxLength: 500 })),
      neighbours: { type: 'object', patternProperties: { '^[a-z0-9][a-z0-9._-]*$': str({ minLength: 1, maxLength: 500 }) }, additionalProperties: false },
      publish: bool,
      review: nullable(
        closed({
          mode: nullable(str({ enum: ['human', 'agent', 'none'] })),
          reviewer: nullable(str({ minLength: 1, maxLength: 200 })),
          base: nullable(str({ minLength: 1, maxLength: 200 })),
          taskType: nullable(catalogKey),
          taskTypes: list(catalogKey, { maxItems: 200 }),
        }),
      ),
    },
    ['repository'],
  ),
  AgentSpec: closed(
    {
      displayName: str({ minLength: 1, maxLength: 200 }),
      description: nullable(str({ maxLength: 2000 })),
      identity: ref('AgentIdentitySpec'),
      executor: nullable(ref('AgentExecutorSpec')),
      placement: { anyOf: [ref('AgentPlacementSpec'), { const: 'none' }, { type: 'null' }] },
      skills: nullable(ref('AgentSkillsSpec')),
      work: nullable(ref('AgentWorkSpec')),
      workingCopy: nullable(ref('AgentWorkingCopySpec')),
      state: str({ enum: ['running', 'stopped'] }),
    },
    ['displayName', 'identity'],
  ),
  AgentPublishRequest: closed({ key: agentKey, spec: ref('AgentSpec'), package: nullable(ref('PackageRef')) }, ['key', 'spec']),
  RuleIdentitySpec: closed({ agent: agentKey }, ['agent']),
  RuleCreateRequest: closed(
    {
      key: str({ minLength: 1, maxLength: 128 }),
      ...ruleFields,
      status: str({ enum: ['enabled', 'disabled'] }),
      workspaceId: nullable(uuid),
      goalId: nullable(uuid),
    },
    ['key', 'trigger', 'action'],
  ),
  RulePatchRequest: closed(ruleFields),
  NotificationRuleRequest: closed({ key: str({ minLength: 1, maxLength: 128 }), spec: anyObject }, ['key', 'spec']),
  ConsoleEditRequest: closed(
    {
      kind: str({ enum: ['TaskType', 'Agent', 'Calendar', 'Process', 'WorkRule', 'View'] }),
      key: str({ minLength: 1, maxLength: 200 }),
      path: str({ minLength: 1, maxLength: 500, pattern: '^[A-Za-z0-9_$-]+(\\.[A-Za-z0-9_$-]+)*$' }),
      value: {},
    },
    ['kind', 'key', 'path', 'value'],
  ),
  BundleApplyRequest: {
    type: 'object',
    properties: {
      bundle: {},
      signature: { type: 'object', properties: { key_id: str(), signature: str(), algorithm: str(), sha256: str() }, required: ['key_id', 'signature'] },
    },
    required: ['bundle', 'signature'],
  },
};

const problem = answer({
  code: str(),
  severity: str({ enum: ['error', 'warning'] }),
  path: str(),
  file: nullable(str()),
  line: nullable(int()),
  message: str(),
  hint: nullable(str()),
});

const answers: Record<string, Schema> = {
  ErrorDetail: answer({ code: str(), message: str(), details: anyObject, requestId: str() }),
  ErrorEnvelope: answer({ error: ref('ErrorDetail') }),
  PackageLinkOut: answer({ key: str(), version: nullable(str()), installHash: nullable(str()), installedAt: dateTime }),
  RetirementOut: answer({ at: dateTime, by: uuid, reason: str() }),
  ProcessProblemOut: problem,
  PlanFieldOut: answer({ path: str(), before: {}, after: {}, owner: str({ enum: ['package', 'console'] }), applies: bool }),
  PlanChangeOut: answer({
    kind: str({ enum: ['TaskType', 'Agent', 'Calendar', 'Process', 'WorkRule', 'View'] }),
    key: str(),
    action: str({ enum: ['create', 'update', 'rename', 'restore', 'retire', 'unchanged'] }),
    renamedFrom: nullable(str()),
    fields: list(ref('PlanFieldOut')),
    deprecates: list(int()),
  }),
  PlanReplayOut: answer({ replayed: int(), diverged: int(), instanceIds: list(uuid) }),
  PlanInstancesOut: answer({ version: int(), open: int(), fate: str({ enum: ['pin', 'migrate', 'unaffected'] }), migrationRequired: bool }),
  PlanProcessOut: answer({
    key: str(), fromVersion: nullable(int()), toVersion: int(), behaviour: nullable(ref('PlanReplayOut')), instances: list(ref('PlanInstancesOut')), deadlines: list(anyObject),
    deadlinesTotal: int(),
  }),
  PlanOutsideOut: answer({ kind: str(), key: str(), appliedBy: str({ enum: ['installer', 'notification-service'] }) }),
  PackagePlanOut: answer(
    {
      planHash: str(),
      catalogEtag: str(),
      package: answer({ key: nullable(str()), version: nullable(str()) }),
      changes: list(ref('PlanChangeOut')),
      outside: list(ref('PlanOutsideOut')),
      processes: list(ref('PlanProcessOut')),
      regulationCoverage: list(anyObject),
      problems: list(ref('ProcessProblemOut')),
      createdAt: dateTime,
    },
  ),
  PackageAppliedOut: answer({ kind: str(), key: str(), action: str(), version: nullable(int()) }),
  PackageApplyOut: answer({ planHash: str(), catalogEtag: str(), applied: list(ref('PackageAppliedOut')) }),
  PackageTestOut: answer({
    status: str({ enum: ['passed', 'failed', 'invalid'] }), checkOnly: bool, problems: list(ref('ProcessProblemOut')), tests: list(anyObject), coverage: list(anyObject),
    ruleCoverage: list(anyObject), taskTypeCoverage: list(anyObject), durationMs: int({ minimum: 0 }),
  }),
  PackageRecordOut: answer({ package: ref('PackageRef'), installHash: nullable(str()), recorded: list(ref('PackageRecordedObject')) }),
  ProcessDefinitionOut: answer(
    {
      id: uuid, tenantId: uuid, workspaceId: nullable(uuid), key: str(), version: int(), latestVersion: int(), displayName: str(), definitionHash: str(),
      identityAgent: nullable(str()), expressionProfile: str(), engineRevision: int(), spec: anyObject, createdBy: uuid, createdAt: dateTime,
      status: str({ enum: ['active', 'retired'] }), retired: nullable(ref('RetirementOut')), package: packageLink,
    },
  ),
  ProcessRetireOut: answer({ key: str(), status: { const: 'retired' }, retired: ref('RetirementOut'), openInstances: int({ minimum: 0 }), byVersion: list(anyObject) }),
  CalendarOut: answer({
    id: uuid, tenantId: uuid, key: str(), version: int(), latestVersion: int(), calendarHash: str(), spec: anyObject, provisionalYears: list(int()),
    createdBy: uuid, createdAt: dateTime, status: str({ enum: ['active', 'retired'] }), retired: nullable(ref('RetirementOut')), package: packageLink,
  }),
  ViewOut: answer({ id: uuid, key: str(), version: int(), latestVersion: int(), spec: anyObject, status: str({ enum: ['active', 'retired'] }), package: packageLink }),
  CalendarRetireOut: answer({ key: str(), status: { const: 'retired' }, retired: ref('RetirementOut') }),
  KnowledgePackOut: answer({ name: str(), version: str(), kinds: list(anyObject), relations: list(anyObject), scope: str({ enum: ['common', 'tenant'] }), ref: nullable(str()) }),
  KnowledgePackRegisterOut: answer({ status: str({ enum: ['created', 'unchanged'] }), pack: ref('KnowledgePackOut') }),
  WorkspaceKnowledgePacksOut: answer(
    { workspaceId: uuid, rootWorkspaceId: uuid, configured: bool, packs: list(str()), strict: bool, effective: list(str()), updatedAt: nullable(str()) },
    ['workspaceId', 'rootWorkspaceId', 'configured', 'packs', 'strict', 'effective'],
  ),
  WorkspaceOut: answer({
    id: uuid, tenantId: uuid, parentId: nullable(uuid), typeId: uuid, slug: str(), name: str(), description: str(), customFields: anyObject, status: str(), version: int(),
    createdAt: dateTime, updatedAt: dateTime,
  }),
  ProjectOut: answer({
    id: uuid, tenantId: uuid, workspaceId: uuid, templateId: uuid, statusKey: str(), systemStatusCategory: str(), ownerPrincipalId: nullable(uuid), startDate: nullable(dateTime),
    targetDate: nullable(dateTime), customFields: anyObject, settings: anyObject, activeConfigRevisionId: nullable(uuid), status: str(), version: int(), createdBy: uuid,
    createdAt: dateTime, updatedAt: dateTime, archivedAt: nullable(dateTime),
  }),
  PrincipalOut: answer({ id: uuid, tenantId: uuid, kind: str(), displayName: str(), status: str(), metadata: anyObject, createdAt: dateTime, updatedAt: dateTime }),
  RoleOut: answer({
    id: uuid, tenantId: uuid, workspaceId: nullable(uuid), slug: str(), name: str(), description: str(), version: int(), createdAt: dateTime, updatedAt: dateTime, package: packageLink,
  }),
  RolePage: page('RoleOut'),
  WorkspaceTypeOut: answer({ id: uuid, key: str(), status: str(), version: int(), displayName: str(), description: str(), fieldSchema: anyObject, allowedChildTypes: list(str()), package: packageLink }),
  WorkspaceTypePage: page('WorkspaceTypeOut'),
  CapabilityOut: answer({ id: uuid, name: str(), description: str(), package: packageLink }),
  CapabilityPage: page('CapabilityOut'),
  ConnectionTypeOut: answer({ id: uuid, key: str(), version: int(), status: str({ enum: ['active', 'deprecated', 'disabled'] }), rowVersion: int(), spec: anyObject, package: packageLink }),
  ConnectionTypePage: page('ConnectionTypeOut'),
  SkillOut: answer({
    id: uuid, name: str(), version: str(), rowVersion: int(), description: str(), protocol: nullable(str()), sideEffects: nullable(str()), riskLevel: nullable(str()),
    contract: nullable(anyObject), config: anyObject, inputSchema: nullable(anyObject), outputSchema: nullable(anyObject), package: packageLink,
  }),
  SkillPage: page('SkillOut'),
  ArtifactTypeOut: answer({
    id: uuid, key: str(), version: int(), status: str(), displayName: str(), description: str(), metadataSchema: anyObject, mediaTypes: list(str()), maxBytes: nullable(int()), package: packageLink,
  }),
  ArtifactTypePage: page('ArtifactTypeOut'),
  TaskTypeOut: answer(
    { id: uuid, tenantId: uuid, key: str(), version: int(), status: str({ enum: ['active', 'deprecated'] }), displayName: str(), description: str(), fieldSchema: anyObject, approvalSchema: anyObject, execution: nullable(anyObject), package: packageLink, createdAt: dateTime },
  ),
  TaskTypePage: page('TaskTypeOut'),
  ProjectTemplateOut: answer(
    { id: uuid, tenantId: uuid, key: str(), version: int(), status: str({ enum: ['active', 'deprecated'] }), displayName: str(), description: str(), fieldSchema: anyObject, defaultViews: list({}), governanceSchema: anyObject, memoryDefaults: anyObject, package: packageLink, createdAt: dateTime },
  ),
  ProjectTemplatePage: page('ProjectTemplateOut'),
  AgentRevisionOut: answer({ id: uuid, agentId: uuid, agentKey: str(), revision: int(), spec: anyObject, specHash: str(), createdBy: uuid, createdAt: dateTime }),
  AgentOut: answer({
    id: uuid, tenantId: uuid, key: str(), displayName: str(), status: str({ enum: ['active', 'retired'] }), state: str({ enum: ['running', 'stopped'] }), replicas: int(),
    currentRevision: int(), revision: ref('AgentRevisionOut'), principalId: nullable(uuid), workspaceId: nullable(uuid), retiredAt: nullable(dateTime), retiredBy: nullable(uuid),
    version: int(), createdAt: dateTime, updatedAt: dateTime,
  }),
  AgentValidateOut: answer({ key: str(), specHash: str(), wouldCreateRevision: bool, wouldChangeState: bool, currentRevision: nullable(int()) }),
  RuleOut: answer({
    id: uuid, key: str(), status: str({ enum: ['enabled', 'disabled', 'archived'] }), version: int(), workspaceId: nullable(uuid), description: str(), trigger: anyObject,
    condition: {}, interpretation: nullable(anyObject), action: anyObject, identity: nullable(anyObject), package: packageLink,
  }),
  RulePage: page('RuleOut'),
  NotificationRuleOut: answer({ key: str(), version: int(), spec: anyObject, specHash: str(), state: str({ enum: ['active', 'retired'] }), createdBy: str(), createdAt: dateTime }),
  NotificationRulePage: page('NotificationRuleOut'),
  NotificationRuleValidateOut: answer({ valid: { const: true }, specHash: str(), changed: bool }),
  ConsoleEditOut: answer({ kind: str(), key: str(), path: str(), before: {}, after: {}, version: nullable(int()) }),
  BundleCreatedOut: answer({ bundle_id: str(), name: str(), version: str() }),
  BundleSummaryOut: answer({ bundle_id: str(), name: str(), version: str(), department: nullable(str()), workflows: list(str()), created_at: str() }),
  BundleList: list(ref('BundleSummaryOut')),
  BundleOut: answer({ bundle_id: str(), name: str(), version: str(), department: nullable(str()), bundle: {}, signature: anyObject, created_at: str() }),
  KeyOut: answer({ key_id: str(), algorithm: { const: 'ed25519' }, public_key: str() }),
  HealthOut: answer({ ok: bool, version: str(), uptime_s: int() }),
};

export const COMPONENT_SCHEMAS: Record<string, Schema> = { ...requests, ...answers };
