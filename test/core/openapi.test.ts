import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApiFile } from '../../src/server/openapi.js';
import { OPENAPI_FILE, type TestCore, startTestCore } from './support.js';

/**
 * docs/core-openapi.json is what users read of the local core without starting one, and what the contract
 * tests check requests and answers against: it must be exactly what a core of the default version serves.
 */
let core: TestCore;

beforeAll(async () => {
  core = await startTestCore();
});
afterAll(() => core.dispose());

describe('docs/core-openapi.json', () => {
  it('is generated from the route table and up to date (npm run docs:openapi)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApiFile());
  });

  it('equals the /openapi.json a core of the default version serves', async () => {
    const served = await core.call('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });
});
