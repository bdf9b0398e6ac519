import { listComponents } from '../../../lib/admin/components-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.components, () => listComponents());
