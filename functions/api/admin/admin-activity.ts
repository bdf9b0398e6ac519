import { listAllActivity } from '../../../lib/admin/activity-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.activity, ({ query }) => listAllActivity(query));
