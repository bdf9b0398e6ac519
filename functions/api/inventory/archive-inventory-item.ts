import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/editing/edit-routes';
import { archiveItem } from '../../../lib/inventory/editing/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.archive, ({ identity, params }) =>
  archiveItem(identity, params.item_id),
);
