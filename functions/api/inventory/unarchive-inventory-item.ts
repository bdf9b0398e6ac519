import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { unarchiveItem } from '../../../lib/inventory/editing/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.unarchive, ({ identity, params }) =>
  unarchiveItem(identity, params.item_id),
);
