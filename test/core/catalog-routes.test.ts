import { describeCatalogRoutes } from './catalog-routes.js';
import { OURS } from './support.js';

describeCatalogRoutes(OURS);
