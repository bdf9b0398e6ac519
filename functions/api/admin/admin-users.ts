import { listUsers } from '../../../lib/admin/people-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.users, ({ query }) => listUsers(query.search));
