import type { CorePlannedKind } from '../../contract/packages.js';
import { editInConsole } from '../packages.js';
import { type Route, bodyOf } from '../route.js';

/**
 * What a person does in the console, for tests of plan/apply: change one field of a published object.
 * The change is published as the console would (a new version or revision) and remembered as a console
 * edit, so the next `/packages:plan` reports the field with `owner: console` (docs/core.md).
 */
export const ADMIN_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/admin/console-edits',
    api: 'admin',
    summary: 'Change a field of a published object as a person in the console would',
    request: 'ConsoleEditRequest',
    response: 'ConsoleEditOut',
    handle(ctx) {
      const body = bodyOf<{ kind: CorePlannedKind; key: string; path: string; value: unknown }>(ctx);
      return { body: editInConsole(ctx.store, body.kind, body.key, body.path, body.value) };
    },
  },
];
