import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryEditRoutes } from '../../../lib/inventory/edit-routes';
import { archiveItem } from '../../../lib/inventory/edit-service';

export const handler = httpEndpoint(inventoryEditRoutes.archive, ({ identity, params }) =>
  archiveItem(identity, params.item_id),
);
