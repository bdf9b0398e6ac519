import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/edit-routes';
import { setItemApproval } from '../../../lib/inventory/review-service';

export const handler = httpEndpoint(inventoryEditRoutes.approve, ({ identity, params, body }) =>
  setItemApproval(identity, params.job_id, body),
);
