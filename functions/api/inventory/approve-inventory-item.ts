import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { setItemApproval } from '../../../lib/inventory/editing/review-service';

export const handler = httpEndpoint(inventoryEditRoutes.approve, ({ identity, params, body }) =>
  setItemApproval(identity, params.job_id, body),
);
