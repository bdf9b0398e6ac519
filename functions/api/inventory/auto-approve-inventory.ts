import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { approveJobItems } from '../../../lib/inventory/editing/review-service';

export const handler = httpEndpoint(inventoryEditRoutes.autoApprove, ({ identity, params }) =>
  approveJobItems(identity, params.job_id),
);
