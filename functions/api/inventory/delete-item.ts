import { httpEndpoint } from '../../../lib/api/endpoint';
import { deleteItem } from '../../../lib/inventory/delete-service';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/lifecycle-routes';

export const handler = httpEndpoint(inventoryLifecycleRoutes.delete, ({ identity, params }) =>
  deleteItem(identity, params.item_id),
);
