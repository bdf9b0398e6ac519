import { adminRoutes } from '../../../lib/admin/routes';
import { showOverview } from '../../../lib/admin/overview-service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.overview, ({ query }) => showOverview(query.range));
