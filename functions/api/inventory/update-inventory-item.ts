import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { updateItem } from '../../../lib/inventory/editing/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.update, ({ identity, params, body }) =>
  updateItem(identity, params.item_id, body),
);
