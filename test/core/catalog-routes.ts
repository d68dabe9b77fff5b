import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract, type Contracts, type TestCore, startTestCore } from './support.js';

/**
 * The catalog routes the installer uses (compat-package-sdk-install §6.3): request bodies are checked
 * against `contracts.catalog` (our document in `npm test`, the real core's catalog components in the
 * conformance suite), answers against it where it describes them (AgentOut), `packages:record` against
 * `contracts.record`, and every answer against the /openapi.json the core serves.
 */
export function describeCatalogRoutes(contracts: Contracts): void {
  let core: TestCore;
  let served: Contract;

  beforeAll(async () => {
    core = await startTestCore();
    served = new Contract((await core.call('GET', '/openapi.json')).body);
  });
  afterAll(() => core.dispose());

  /** A write whose body the contract accepts (or refuses), answered as the served OpenAPI document says. */
  async function send(method: string, template: string, path: string, body: unknown, real?: { schema: string; valid: boolean }, headers: Record<string, string> = {}) {
    if (real) {
      const errors = contracts.catalog.errors(real.schema, body);
      if (real.valid) expect(errors).toEqual([]);
      else expect(errors, 'the contract refuses this body too').not.toEqual([]);
    }
    const answer = await core.call(method, path, { body, headers });
    served.answer(template, method, answer);
    return answer;
  }

  const get = (template: string, path: string) => send('GET', template, path, undefined);

  describe('served OpenAPI document', () => {
    it('reports the configured version and the kinds packages:record accepts', async () => {
      const doc = (await core.call('GET', '/openapi.json')).body;
      expect(doc.info.version).toBe('0.10.0');
      const schema = doc.paths['/api/v1/packages:record'].post.requestBody.content['application/json'].schema;
      const record = doc.components.schemas[schema.$ref.split('/').at(-1)];
      const object = doc.components.schemas[record.properties.objects.items.$ref.split('/').at(-1)];
      expect(object.properties.kind.enum).toEqual(contracts.record.doc.components.schemas.PackageRecordedObject.properties.kind.enum);
      for (const path of Object.keys(contracts.catalog.doc.paths ?? {})) expect(doc.paths[path]).toBeDefined();
    });
  });

  describe('task types and project templates: immutable versions', () => {
    it('creates versions, lists them by key and status, deprecates, and keeps the built-in task', async () => {
      const body = { key: 'claim-review', displayName: 'Review a claim', fieldSchema: { type: 'object' } };
      const v1 = await send('POST', '/api/v1/task-types', '/api/v1/task-types', body, { schema: 'TaskTypeCreateRequest', valid: true });
      expect(v1.status).toBe(201);
      expect(v1.body).toMatchObject({ key: 'claim-review', version: 1, status: 'active', description: '', approvalSchema: {}, execution: null });
      const v2 = await send('POST', '/api/v1/task-types', '/api/v1/task-types', { ...body, displayName: 'Review' }, { schema: 'TaskTypeCreateRequest', valid: true });
      expect(v2.body.version).toBe(2);
      const active = await get('/api/v1/task-types', '/api/v1/task-types?key=claim-review&status=active&limit=100');
      expect(active.body.items.map((i: any) => i.version)).toEqual([1, 2]);
      const deprecated = await send('POST', '/api/v1/task-types/{id}:deprecate', `/api/v1/task-types/${v1.body.id}:deprecate`, undefined);
      expect(deprecated.body.status).toBe('deprecated');
      const after = await get('/api/v1/task-types', '/api/v1/task-types?key=claim-review&status=active');
      expect(after.body.items.map((i: any) => i.version)).toEqual([2]);
      expect((await get('/api/v1/task-types/{id}', `/api/v1/task-types/${v2.body.id}`)).body.displayName).toBe('Review');

      const task = (await get('/api/v1/task-types', '/api/v1/task-types?key=task')).body.items[0];
      const refused = await send('POST', '/api/v1/task-types/{id}:deprecate', `/api/v1/task-types/${task.id}:deprecate`, undefined);
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('system_task_type_required');

      const bad = await send('POST', '/api/v1/task-types', '/api/v1/task-types', { key: 'Bad Key', displayName: 'x' }, { schema: 'TaskTypeCreateRequest', valid: false });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', message: 'Request does not match the API contract', details: { errors: [{ loc: 'body.key', message: expect.stringContaining('pattern') }] } });
      const unknownField = await send('POST', '/api/v1/task-types', '/api/v1/task-types', { ...body, colour: 'red' }, { schema: 'TaskTypeCreateRequest', valid: false });
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.error.details.errors).toEqual([{ loc: 'body.colour', message: 'Extra inputs are not permitted' }]);
    });

    it('pages a list with limit and cursor', async () => {
      for (let i = 0; i < 5; i++) await send('POST', '/api/v1/project-templates', '/api/v1/project-templates', { key: 'case', displayName: `Case ${i}` }, { schema: 'ProjectTemplateCreateRequest', valid: true });
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const answer: any = await get('/api/v1/project-templates', `/api/v1/project-templates?key=case&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...answer.body.items.map((i: any) => i.version));
        cursor = answer.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      const tooFew = await get('/api/v1/project-templates', '/api/v1/project-templates?limit=0');
      expect(tooFew.status).toBe(400);
      expect(tooFew.body.error.details.errors).toEqual([{ loc: 'query.limit', message: 'Input should be greater than or equal to 1' }]);
      const unknown = await get('/api/v1/project-templates', '/api/v1/project-templates?limit=2&sort=key');
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.details.errors).toEqual([{ loc: 'query.sort', message: 'Unknown query parameter' }]);
    });
  });

  describe('rows changed under If-Match', () => {
    it('workspace types: create, 409 on a second create, PATCH with the right ETag, 412 with a stale one, 428 without', async () => {
      const created = await send('POST', '/api/v1/workspace-types', '/api/v1/workspace-types', { key: 'team', displayName: 'Team' }, { schema: 'WorkspaceTypeCreateRequest', valid: true });
      expect(created.headers.get('etag')).toBe('"workspace_type-1"');
      expect((await send('POST', '/api/v1/workspace-types', '/api/v1/workspace-types', { key: 'team', displayName: 'Team' })).status).toBe(409);
      const path = `/api/v1/workspace-types/${created.body.id}`;
      const patched = await send('PATCH', '/api/v1/workspace-types/{id}', path, { description: 'A team' }, undefined, { 'If-Match': '"workspace_type-1"' });
      expect(patched.body).toMatchObject({ version: 2, description: 'A team', displayName: 'Team' });
      const stale = await send('PATCH', '/api/v1/workspace-types/{id}', path, { description: 'Lost' }, undefined, { 'If-Match': '"workspace_type-1"' });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      expect((await send('PATCH', '/api/v1/workspace-types/{id}', path, { description: 'Blind' })).status).toBe(428);
      expect((await get('/api/v1/workspace-types/{id}', path)).body.description).toBe('A team');
    });

    it('roles, skills and connection types move their counters and refuse stale writes', async () => {
      const role = await send('POST', '/api/v1/roles', '/api/v1/roles', { slug: 'claims-officer', name: 'Claims officer' }, { schema: 'RoleCreateRequest', valid: true });
      const rolePatch = await send('PATCH', '/api/v1/roles/{id}', `/api/v1/roles/${role.body.id}`, { name: 'Officer' }, undefined, { 'If-Match': '"role-1"' });
      expect(rolePatch.body).toMatchObject({ version: 2, name: 'Officer' });
      expect((await send('PATCH', '/api/v1/roles/{id}', `/api/v1/roles/${role.body.id}`, { name: 'X' }, undefined, { 'If-Match': '"role-1"' })).status).toBe(412);
      const listed = await get('/api/v1/roles', '/api/v1/roles?limit=100');
      expect(listed.body.items.some((r: any) => r.slug === 'claims-officer' && r.workspaceId === null)).toBe(true);

      const skillBody = { name: 'claims.classify', version: '1.0.0', protocol: 'http', contract: { implementation: { endpoint: 'http://a' } }, description: 'Classify' };
      const skill = await send('POST', '/api/v1/skills', '/api/v1/skills', skillBody, { schema: 'SkillRegisterRequest', valid: true });
      expect((await send('POST', '/api/v1/skills', '/api/v1/skills', skillBody)).status).toBe(409);
      const moved = await send('PATCH', '/api/v1/skills/{id}', `/api/v1/skills/${skill.body.id}`, { endpoint: 'http://b', description: 'Classify claims' }, undefined, { 'If-Match': '"skill-1"' });
      expect(moved.body).toMatchObject({ rowVersion: 2, contract: { implementation: { endpoint: 'http://b' } }, description: 'Classify claims' });
      expect((await get('/api/v1/skills', '/api/v1/skills?name=claims.classify')).body.items).toHaveLength(1);

      const ct = await send('POST', '/api/v1/connection-types', '/api/v1/connection-types', { key: 'helpdesk', version: 1, spec: { displayName: 'Helpdesk' } });
      expect(ct.status).toBe(201);
      const deprecated = await send('PATCH', '/api/v1/connection-types/{key}@{version}', '/api/v1/connection-types/helpdesk@1', { status: 'deprecated' }, undefined, { 'If-Match': '"connection-type-1"' });
      expect(deprecated.body).toMatchObject({ status: 'deprecated', rowVersion: 2 });
      expect((await send('PATCH', '/api/v1/connection-types/{key}@{version}', '/api/v1/connection-types/helpdesk@1', { status: 'active' }, undefined, { 'If-Match': '"connection-type-1"' })).status).toBe(412);
    });

    it('capabilities and artifact types', async () => {
      const cap = await send('POST', '/api/v1/capabilities', '/api/v1/capabilities', { name: 'claims.read', description: 'Read claims' }, { schema: 'CapabilityCreateRequest', valid: true });
      expect(cap.status).toBe(201);
      expect((await get('/api/v1/capabilities', '/api/v1/capabilities')).body.items.map((c: any) => c.name)).toContain('claims.read');
      const art = await send('POST', '/api/v1/artifact-types', '/api/v1/artifact-types', { key: 'claim-letter', displayName: 'Letter', mediaTypes: ['application/pdf'] }, { schema: 'ArtifactTypeCreateRequest', valid: true });
      expect(art.body).toMatchObject({ version: 1, maxBytes: null, metadataSchema: {} });
      const empty = await send('POST', '/api/v1/artifact-types', '/api/v1/artifact-types', { key: 'claim-letter', displayName: 'Letter', mediaTypes: [] });
      expect(empty.body.error.code).toBe('invalid_artifact_type');
    });
  });

  describe('agents', () => {
    const spec = { displayName: 'Claims process', identity: { kind: 'service', permissions: ['tasks.create'] }, placement: { replicas: 1 } };

    it('validates without writing, publishes revisions, changes state without a revision, retires', async () => {
      const body = { key: 'claims-process', spec, package: { key: 'claims', version: '0.1.0' } };
      const check = await send('POST', '/api/v1/agents:validate', '/api/v1/agents:validate', body, { schema: 'AgentPublishRequest', valid: true });
      expect(check.body).toMatchObject({ wouldCreateRevision: true, wouldChangeState: false, currentRevision: null });
      expect((await get('/api/v1/agents/{ref}', '/api/v1/agents/claims-process')).status).toBe(404);

      const published = await send('POST', '/api/v1/agents', '/api/v1/agents', body, { schema: 'AgentPublishRequest', valid: true });
      expect(published.status).toBe(201);
      contracts.catalog.valid('AgentOut', published.body);
      expect(published.body).toMatchObject({ currentRevision: 1, state: 'running', replicas: 1, status: 'active' });

      const scaled = { key: 'claims-process', spec: { ...spec, state: 'stopped', placement: { replicas: 2 } } };
      expect((await send('POST', '/api/v1/agents:validate', '/api/v1/agents:validate', scaled)).body).toMatchObject({ wouldCreateRevision: false, wouldChangeState: true, currentRevision: 1 });
      const moved = await send('POST', '/api/v1/agents', '/api/v1/agents', scaled);
      expect(moved.body).toMatchObject({ currentRevision: 1, state: 'stopped', replicas: 2 });
      const revised = await send('POST', '/api/v1/agents', '/api/v1/agents', { key: 'claims-process', spec: { ...spec, displayName: 'Claims' } });
      expect(revised.body.currentRevision).toBe(2);
      const first = await get('/api/v1/agents/{ref}', '/api/v1/agents/claims-process@1');
      contracts.catalog.valid('AgentOut', first.body);
      expect(first.body.revision.spec.displayName).toBe('Claims process');

      const retired = await send('POST', '/api/v1/agents/{key}:retire', '/api/v1/agents/claims-process:retire', { reason: 'gone' });
      contracts.catalog.valid('AgentOut', retired.body);
      expect(retired.body.status).toBe('retired');

      const invalid = { key: 'claims-process', spec: { displayName: 'x', identity: { kind: 'robot', permissions: [] } } };
      expect((await send('POST', '/api/v1/agents', '/api/v1/agents', invalid, { schema: 'AgentPublishRequest', valid: false })).status).toBe(400);
    });
  });

  describe('work rules', () => {
    it('creates, patches under If-Match, disables, enables and archives', async () => {
      const body = { key: 'claim-reopened', trigger: { observation: 'helpdesk.reopened' }, action: { kind: 'ensure_work', taskType: 'claim-review' } };
      const rule = await send('POST', '/api/v1/rules', '/api/v1/rules', body, { schema: 'RuleCreateRequest', valid: true });
      expect(rule.body).toMatchObject({ status: 'enabled', version: 1, condition: true, description: '' });
      expect((await send('POST', '/api/v1/rules', '/api/v1/rules', body)).status).toBe(409);
      const path = `/api/v1/rules/${rule.body.id}`;
      const patched = await send('PATCH', '/api/v1/rules/{id}', path, { description: 'Reopened' }, undefined, { 'If-Match': '"rule-1"' });
      expect(patched.body.version).toBe(2);
      expect((await send('PATCH', '/api/v1/rules/{id}', path, { description: 'Lost' }, undefined, { 'If-Match': '"rule-1"' })).status).toBe(412);
      expect((await send('POST', '/api/v1/rules/{id}:disable', `${path}:disable`, undefined)).body).toMatchObject({ status: 'disabled', version: 3 });
      expect((await send('POST', '/api/v1/rules/{id}:enable', `${path}:enable`, undefined)).body).toMatchObject({ status: 'enabled', version: 4 });
      const archived = await send('DELETE', '/api/v1/rules/{id}', path, undefined);
      expect(archived.body.status).toBe('archived');
      expect((await send('DELETE', '/api/v1/rules/{id}', path, undefined)).body.version).toBe(archived.body.version);
      expect((await get('/api/v1/rules', '/api/v1/rules?key=claim-reopened')).body.items).toHaveLength(1);
      expect((await send('POST', '/api/v1/rules', '/api/v1/rules', body)).status).toBe(201);
    });
  });

  describe('packages:record', () => {
    it('links applied objects to their package, and refuses an object the catalog does not have', async () => {
      await send('POST', '/api/v1/roles', '/api/v1/roles', { slug: 'desk-agent', name: 'Desk agent' });
      const body = { package: { key: 'desk', version: '0.1.0' }, installHash: `sha256:${'a'.repeat(64)}`, objects: [{ kind: 'Capability', key: 'claims.read' }, { kind: 'Role', key: 'desk-agent' }] };
      contracts.record.valid('PackageRecordRequest', body);
      const recorded = await send('POST', '/api/v1/packages:record', '/api/v1/packages:record', body);
      contracts.record.valid('PackageRecordOut', recorded.body);
      // In the catalog's order of kinds, not the request's.
      expect(recorded.body.recorded).toEqual([{ kind: 'Role', key: 'desk-agent' }, { kind: 'Capability', key: 'claims.read' }]);
      const role = (await get('/api/v1/roles', '/api/v1/roles')).body.items.find((r: any) => r.slug === 'desk-agent');
      expect(role.package).toMatchObject({ key: 'desk', version: '0.1.0', installHash: body.installHash });
      const unknown = await send('POST', '/api/v1/packages:record', '/api/v1/packages:record', { ...body, objects: [{ kind: 'Skill', key: 'nope' }, { kind: 'Role', key: 'desk-agent' }, { kind: 'Agent', key: 'nobody' }] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toMatchObject({ code: 'unknown_object', details: { objects: [{ kind: 'Skill', key: 'nope' }, { kind: 'Agent', key: 'nobody' }] } });
      const badKind = { ...body, objects: [{ kind: 'Process', key: 'x' }] };
      expect(contracts.record.errors('PackageRecordRequest', badKind)).not.toEqual([]);
      expect((await send('POST', '/api/v1/packages:record', '/api/v1/packages:record', badKind)).status).toBe(400);
    });
  });

  describe('notification rules', () => {
    const spec = { on: { type: 'task.assigned' }, recipient: { kind: 'assigned' }, notification: { type: 'claims.assigned', title: 'A claim is yours' } };

    it('validates, stores versions, answers unchanged, lists and retires', async () => {
      const validate = await send('POST', '/api/v1/notification-rules:validate', '/api/v1/notification-rules:validate', { key: 'claim-assigned', spec });
      expect(validate.body).toMatchObject({ valid: true, changed: true });
      const created = await send('POST', '/api/v1/notification-rules', '/api/v1/notification-rules', { key: 'claim-assigned', spec });
      expect(created.status).toBe(201);
      expect(created.body.version).toBe(1);
      const same = await core.call('POST', '/api/v1/notification-rules', { body: { key: 'claim-assigned', spec } });
      expect(same.status).toBe(200);
      expect((await send('POST', '/api/v1/notification-rules:validate', '/api/v1/notification-rules:validate', { key: 'claim-assigned', spec })).body.changed).toBe(false);
      const v2 = await core.call('POST', '/api/v1/notification-rules', { body: { key: 'claim-assigned', spec: { ...spec, description: 'v2' } } });
      expect(v2.body.version).toBe(2);
      const listed = await get('/api/v1/notification-rules', '/api/v1/notification-rules?key=claim-assigned&limit=100');
      expect(listed.body.items.map((r: any) => r.version)).toEqual([2]);

      const bad = await send('POST', '/api/v1/notification-rules:validate', '/api/v1/notification-rules:validate', { key: 'x', spec: { on: {}, recipient: { kind: 'everyone' } } });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('invalid_notification_rule');
      expect(bad.body.error.details.errors.map((e: any) => e.path)).toEqual(['/on/type', '/recipient/kind', '/notification']);

      const retired = await send('POST', '/api/v1/notification-rules/{key}:retire', '/api/v1/notification-rules/claim-assigned:retire', undefined);
      expect(retired.body.state).toBe('retired');
      expect((await send('POST', '/api/v1/notification-rules/{key}:retire', '/api/v1/notification-rules/claim-assigned:retire', undefined)).body).toEqual(retired.body);
      expect((await get('/api/v1/notification-rules', '/api/v1/notification-rules?key=claim-assigned')).body.items).toEqual([]);
      expect((await get('/api/v1/notification-rules', '/api/v1/notification-rules?key=claim-assigned&includeRetired=true')).body.items).toHaveLength(1);
      expect((await send('POST', '/api/v1/notification-rules/{key}:retire', '/api/v1/notification-rules/nope:retire', undefined)).status).toBe(404);
    });
  });

  describe('single reads', () => {
    it('reads one rule, skill, project template and connection types by id or key, with their ETags', async () => {
      const rule = (await get('/api/v1/rules', '/api/v1/rules?status=enabled')).body.items[0];
      const oneRule = await get('/api/v1/rules/{id}', `/api/v1/rules/${rule.id}`);
      expect(oneRule.headers.get('etag')).toBe(`"rule-${rule.version}"`);
      const skill = (await get('/api/v1/skills', '/api/v1/skills')).body.items[0];
      expect((await get('/api/v1/skills/{id}', `/api/v1/skills/${skill.id}`)).headers.get('etag')).toBe(`"skill-${skill.rowVersion}"`);
      const template = (await get('/api/v1/project-templates', '/api/v1/project-templates?key=case')).body.items[0];
      expect((await get('/api/v1/project-templates/{id}', `/api/v1/project-templates/${template.id}`)).body.key).toBe('case');
      expect((await get('/api/v1/connection-types', '/api/v1/connection-types?key=helpdesk')).body.items).toHaveLength(1);
      expect((await get('/api/v1/workspace-types', '/api/v1/workspace-types')).body.items.map((w: any) => w.key)).toEqual(['team']);
      expect((await get('/api/v1/project-templates/{id}', `/api/v1/project-templates/${randomUUID()}`)).status).toBe(404);
    });

    it('serves the Kernos health route', async () => {
      expect((await get('/v1/health', '/v1/health')).body).toMatchObject({ ok: true, version: '0.10.0' });
    });
  });

  describe('packages:test', () => {
    it('answers every request it takes, an invalid package included, with 200 and its status', async () => {
      const answer = await send('POST', '/api/v1/packages:test', '/api/v1/packages:test', { package: { files: [{ path: 'package.yaml', content: 'key: x\n' }] } }, undefined, { 'Idempotency-Key': randomUUID() });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'invalid', checkOnly: false, tests: [], durationMs: expect.any(Number) });
      expect(answer.body.problems.map((p: any) => [p.code, p.file, p.path])).toEqual([['package_manifest_missing', 'package.yaml', ''], ['invalid_document', 'package.yaml', '/apiVersion']]);
    });
  });
}
