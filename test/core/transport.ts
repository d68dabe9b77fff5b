import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contracts, type TestCore, startTestCore } from './support.js';

/**
 * Auth, routes and bodies: every refusal comes in its service's envelope, and the core envelope is the one
 * `contracts.install` describes (our document in `npm test`, the real core's slice in the conformance suite).
 */
export function describeAuthRoutesAndBodies(contracts: Contracts): void {
  let core: TestCore;

  beforeAll(async () => {
    core = await startTestCore({ version: '0.9.3' });
  });
  afterAll(() => core.dispose());

  describe('auth, routes and bodies', () => {
    it('refuses a wrong or missing token with 401 in each service\'s envelope', async () => {
      for (const token of ['wrong', null]) {
        const answer = await core.call('GET', '/api/v1/roles', { token });
        expect(answer.status).toBe(401);
        contracts.install.valid('ErrorEnvelope', answer.body);
        expect(answer.body.error.code).toBe('invalid_credentials');
      }
      expect((await core.call('GET', '/openapi.json', { token: 'wrong' })).status).toBe(401);
      expect((await core.call('GET', '/api/v1/notification-rules', { token: 'wrong' })).body.error.code).toBe('invalid_token');
      const kernos = await core.call('GET', '/v1/bundles', { token: 'wrong' });
      expect(kernos.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: {} } });
    });

    it('serves /openapi.json with the configured version', async () => {
      const doc = await core.call('GET', '/openapi.json');
      expect(doc.body.info.version).toBe('0.9.3');
      expect(doc.headers.get('content-type')).toBe('application/json');
    });

    it('answers 404 for an unknown route, 405 for a known path with another method', async () => {
      const unknown = await core.call('GET', '/api/v1/nothing-here');
      expect(unknown.status).toBe(404);
      contracts.install.valid('ErrorEnvelope', unknown.body);
      expect(unknown.body.error.code).toBe('not_found');
      const method = await core.call('DELETE', '/api/v1/task-types');
      expect(method.status).toBe(405);
      contracts.install.valid('ErrorEnvelope', method.body);
    });

    it('answers 400 invalid_json for a body that is not JSON, 400 invalid_request for one that breaks the request model', async () => {
      const bad = await core.call('POST', '/api/v1/task-types', { raw: '{"key": "x", ' });
      expect(bad.status).toBe(400);
      contracts.install.valid('ErrorEnvelope', bad.body);
      expect(bad.body.error.code).toBe('invalid_json');
      const missing = await core.call('POST', '/api/v1/task-types');
      expect(missing.status).toBe(400);
      expect(missing.body.error.details.errors).toEqual([{ loc: 'body', message: 'Field required' }]);
      const wrong = await core.call('POST', '/api/v1/task-types', { body: { key: 'x', displayName: 7, extra: true } });
      expect(wrong.status).toBe(400);
      contracts.install.valid('ErrorEnvelope', wrong.body);
      expect(wrong.body.error).toMatchObject({ code: 'invalid_request', message: 'Request does not match the API contract' });
      expect(wrong.body.error.details.errors).toEqual([
        { loc: 'body.extra', message: 'Extra inputs are not permitted' },
        { loc: 'body.displayName', message: 'Input should be a valid string' },
      ]);
      const many = await core.call('POST', '/api/v1/task-types', { body: { key: 'x', displayName: 'x', ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, i])) } });
      expect(many.body.error.details.errors).toHaveLength(20);
      const kernos = await core.call('POST', '/v1/bundles', { raw: 'nope' });
      expect(kernos.body).toEqual({ error: { code: 'invalid_json', message: expect.any(String), details: {} } });
      expect((await core.call('POST', '/v1/bundles', { body: { bundle: {} } })).body.error.code).toBe('invalid_json');
    });
  });
}
