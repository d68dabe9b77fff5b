import { type Route, findOr404 } from '../route.js';
import type { Row } from '../store.js';

/** Workspaces, projects and principals come from the seed file; plan looks up variable values here. */
function lookup(path: string, collection: string, response: string, noun: string): Route {
  return {
    method: 'GET',
    path,
    api: 'core',
    params: { id: 'uuid' },
    summary: `Read a ${noun} (seeded with --seed)`,
    response,
    handle: (ctx) => ({ body: findOr404(ctx.store.get<Row>(collection, ctx.params.id!.toLowerCase()), `${noun} ${ctx.params.id}`) }),
  };
}

export const LOOKUP_ROUTES: Route[] = [
  lookup('/api/v1/workspaces/{id}', 'workspaces', 'WorkspaceOut', 'workspace'),
  lookup('/api/v1/projects/{id}', 'projects', 'ProjectOut', 'project'),
  lookup('/api/v1/principals/{id}', 'principals', 'PrincipalOut', 'principal'),
];
