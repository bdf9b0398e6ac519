import { httpEndpoint } from '../../../lib/api/endpoint';
import { deleteItem } from '../../../lib/inventory/editing/delete-service';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/editing/lifecycle-routes';

export const handler = httpEndpoint(inventoryLifecycleRoutes.delete, ({ identity, params }) =>
  deleteItem(identity, params.item_id),
);
