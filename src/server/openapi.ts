import { DEFAULT_CORE_VERSION } from '../contract/version.js';
import type { QueryParameter, Route } from './route.js';
import { ROUTES } from './routes/index.js';
import { COMPONENT_SCHEMAS } from './schemas.js';

const TAGS: Record<Route['api'], string> = { core: 'core', notifications: 'notification-service', kernos: 'kernos', admin: 'admin' };

/**
 * `GET /openapi.json`: the routes this core serves, from the route table itself, so the document cannot
 * drift from the server. Clients read `info.version` (engines) and the kinds `POST /packages:record`
 * accepts.
 */
export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const success = {
      description: 'Success',
      ...(route.response ? { content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.response}` } } } } : {}),
    };
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId: operationId(route),
      tags: [TAGS[route.api]],
      parameters: [
        ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: pathSchema(route, m[1]!) })),
        ...(route.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, schema: querySchema(q), ...(q.description ? { description: q.description } : {}) })),
      ],
      responses: {
        ...Object.fromEntries([route.status ?? 200, ...(route.alsoStatus ? [route.alsoStatus] : [])].map((status) => [String(status), success])),
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
      },
    };
    if (route.request) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.request}` } } } };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'control-plane', version, description: 'The local core of package-sdk: the routes plan, apply, test and bundle use.' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: COMPONENT_SCHEMAS, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}

/**
 * docs/core-openapi.json, which users read without starting a core: the document a core of the default
 * version serves, two-space indented. `npm run docs:openapi` writes it; a test keeps it equal to the served one.
 */
export function renderOpenApiFile(): string {
  return `${JSON.stringify(openApiDocument(ROUTES, DEFAULT_CORE_VERSION), null, 2)}\n`;
}

function pathSchema(route: Route, name: string): Record<string, unknown> {
  return route.params?.[name] === 'uuid' ? { type: 'string', format: 'uuid' } : { type: 'string' };
}

function querySchema(parameter: QueryParameter): Record<string, unknown> {
  return {
    type: parameter.type,
    ...(parameter.minimum !== undefined ? { minimum: parameter.minimum } : {}),
    ...(parameter.maximum !== undefined ? { maximum: parameter.maximum } : {}),
  };
}

function operationId(route: Route): string {
  return `${route.method.toLowerCase()}_${route.path.replace(/^\/(api\/)?/, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
}
