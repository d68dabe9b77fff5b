import { describe, expect, it } from 'vitest';
import { OURS } from '../core/support.js';
import { answerDifferences, REAL, requestDifferences, shape } from './core-support.js';

/**
 * docs/core-openapi.json against the real core's OpenAPI slices: the routes of the install slice and of
 * `packages:record` are all served, with requests admitted alike and answers described as the real core
 * describes them; the catalog's request bodies and answers are the same where our document names them.
 */
const ours = OURS.install;
const json = (content: any): any => content?.['application/json']?.schema;

/** Every operation of a slice: `[METHOD path, operation]`. */
const operations = (doc: any): [string, string, any][] =>
  Object.entries<any>(doc.paths ?? {}).flatMap(([path, methods]) => Object.entries<any>(methods).map(([method, operation]): [string, string, any] => [method, path, operation]));

describe.each([['install', REAL.install], ['packages:record', REAL.record]])('the real %s slice', (_, real) => {
  it.each(operations(real.doc).map(([method, path, operation]) => [`${method.toUpperCase()} ${path}`, method, path, operation]))('%s is served, and takes the same request', (_name, method, path, operation) => {
    const mine = ours.operation(path, method);
    expect(mine, `${method} ${path} is not in docs/core-openapi.json`).toBeDefined();
    const request = json(operation.requestBody?.content);
    expect(Boolean(json(mine.requestBody?.content)), 'a request body on both sides or on neither').toBe(Boolean(request));
    if (request) expect(requestDifferences(shape(ours.doc, json(mine.requestBody.content)), shape(real.doc, request))).toEqual([]);
  });

  it.each(operations(real.doc).map(([method, path, operation]) => [`${method.toUpperCase()} ${path}`, method, path, operation]))('%s answers as the real core describes', (_name, method, path, operation) => {
    const mine = ours.operation(path, method);
    for (const [status, response] of Object.entries<any>(operation.responses ?? {}).filter(([status]) => status.startsWith('2'))) {
      const answer = json(response.content);
      if (!answer) continue; // the real core documents no body: anything we answer is allowed
      const documented = json((mine.responses[status] ?? mine.responses.default).content);
      expect(documented, `${method} ${path} ${status}`).toBeDefined();
      expect(answerDifferences(shape(ours.doc, documented), shape(real.doc, answer)), `${method} ${path} ${status}`).toEqual([]);
    }
    const errors = Object.entries<any>(operation.responses ?? {}).filter(([status]) => !status.startsWith('2')).map(([, response]) => json(response.content)?.$ref);
    for (const error of new Set(errors.filter(Boolean))) expect(json(mine.responses.default.content).$ref).toBe(error);
  });
});

describe('the real catalog components', () => {
  const components = Object.keys(REAL.catalog.doc.components.schemas);
  const named = components.filter((name) => name in ours.doc.components.schemas);

  it('are all in our document but those of routes the local core does not serve, or that it writes inline', () => {
    expect(components.filter((name) => !named.includes(name))).toEqual([
      'AgentPackageRef', 'AgentResourcesSpec', 'AgentReviewSpec', 'ArtifactCreateRequest', 'KnowledgeSnapshotRequest', 'ObservationCreateRequest', 'ObservationExternalRef',
    ]);
  });

  it.each(named)('%s admits what the real one does', (name) => {
    const differences = /Out$/.test(name) ? answerDifferences : requestDifferences;
    expect(differences(shape(ours.doc, ours.doc.components.schemas[name]), shape(REAL.catalog.doc, REAL.catalog.doc.components.schemas[name]))).toEqual([]);
  });
});
