import { httpEndpoint } from '../../../lib/api/endpoint';
import { addItem } from '../../../lib/inventory/add-service';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/lifecycle-routes';

export const handler = httpEndpoint(inventoryLifecycleRoutes.add, ({ identity, params, body }) =>
  addItem(identity, params.job_id, body),
);
