import { setComponent } from '../../../lib/admin/components-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.setComponent, ({ body }) => setComponent(body));
