/**
 * What the core refuses of a connection type when it publishes it (compat-core-validators.md §6,
 * check_connection_type_spec): members the API contract does not know, credentials anywhere and settings named
 * like secrets, then its form — consent through oauth2 (an https consent page, a token URL template over one
 * placeholder whose host is an external DNS name), the account field, the settings schema and the default key.
 */
import { connectionTypeProblems } from '../domain/connection-type.js';
import { domainCode, reportProblems, sharedCode } from '../domain/report.js';
import { defineObjectRule } from '../rule.js';

export const connectionTypes = defineObjectRule({
  id: 'connection-types/core',
  description: 'A connection type has only the members of the API, no secrets, and the form the core publishes.',
  codes: {
    invalid_request: domainCode('A connection type (or its oauth2 or accountField) has a member the API contract does not know. The core refuses it when it publishes the type (plan, apply).'),
    invalid_connection_type: domainCode('A connection type is refused: displayName, auth, oauth2 (https URLs, a token URL over {account} with an external DNS host, accountParam, authStyle, scopes), accountField (a pattern that compiles), settingsSchema, defaultKey. The core refuses it when it publishes the type (plan, apply).'),
    secret_material_rejected: sharedCode('secret_material_rejected'),
  },
  subjects: ['ConnectionType'],
  checkObject(context, type) {
    const view = context.facts.coreView(type);
    if ('spec' in view) reportProblems(context, type, connectionTypeProblems(view.spec));
  },
});
