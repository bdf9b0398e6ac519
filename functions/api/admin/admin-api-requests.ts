import { listApiRequests } from '../../../lib/admin/job-list-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.apiRequests, ({ query }) => listApiRequests(query));
