import { httpEndpoint } from '../../../lib/api/endpoint';
import { addItem } from '../../../lib/inventory/editing/add-service';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/editing/lifecycle-routes';

export const handler = httpEndpoint(inventoryLifecycleRoutes.add, ({ identity, params, body }) =>
  addItem(identity, params.job_id, body),
);
