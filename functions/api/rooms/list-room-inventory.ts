import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryRoutes } from '../../../lib/inventory/routes';
import { listRoomInventory } from '../../../lib/inventory/service';

export const handler = httpEndpoint(inventoryRoutes.listRoom, ({ identity, params, query }) =>
  listRoomInventory(identity, params.room_id, { archived: query.archived }),
);
