import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/edit-routes';
import { updateJobItems } from '../../../lib/inventory/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.bulk, ({ identity, params, body }) =>
  updateJobItems(identity, params.job_id, body),
);
