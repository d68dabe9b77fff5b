import type { Route } from '../route.js';
import { ADMIN_ROUTES } from './admin.js';
import { AGENT_ROUTES } from './agents.js';
import { BUNDLE_ROUTES } from './bundles.js';
import { CATALOG_ROUTES } from './catalog.js';
import { KNOWLEDGE_ROUTES } from './knowledge.js';
import { LOOKUP_ROUTES } from './lookups.js';
import { NOTIFICATION_ROUTES } from './notifications.js';
import { PACKAGE_ROUTES } from './packages.js';
import { PROCESS_ROUTES } from './processes.js';
import { RULE_ROUTES } from './rules.js';

/** Every route of the local core, by family; /openapi.json is built from this list. */
export const ROUTES: readonly Route[] = [
  ...PACKAGE_ROUTES,
  ...PROCESS_ROUTES,
  ...KNOWLEDGE_ROUTES,
  ...LOOKUP_ROUTES,
  ...CATALOG_ROUTES,
  ...AGENT_ROUTES,
  ...RULE_ROUTES,
  ...NOTIFICATION_ROUTES,
  ...BUNDLE_ROUTES,
  ...ADMIN_ROUTES,
];
