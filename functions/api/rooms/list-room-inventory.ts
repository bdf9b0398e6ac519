import { httpEndpoint } from '../../../lib/api/endpoint';
import { listRoomInventory } from '../../../lib/inventory/service';
import { roomRoutes } from '../../../lib/rooms/routes';

export const handler = httpEndpoint(roomRoutes.inventory, ({ identity, params, query }) =>
  listRoomInventory(identity, params.room_id, { archived: query.archived }),
);
