import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { updateJobItems } from '../../../lib/inventory/editing/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.bulk, ({ identity, params, body }) =>
  updateJobItems(identity, params.job_id, body),
);
