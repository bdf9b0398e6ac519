import { startImpersonation } from '../../../lib/admin/people-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.impersonate, ({ identity, params }) =>
  startImpersonation(identity, params.user_id),
);
