import { describeCatalogRoutes } from '../core/catalog-routes.js';
import { describeConsoleEdits } from '../core/console-edits.js';
import { describeInstallRoutes } from '../core/install-routes.js';
import { describeAuthRoutesAndBodies } from '../core/transport.js';
import { REAL } from './core-support.js';

/** The requests of the core suites again, each request and answer held against the real core's slices. */
describeInstallRoutes(REAL);
describeCatalogRoutes(REAL);
describeAuthRoutesAndBodies(REAL);
describeConsoleEdits(REAL);
