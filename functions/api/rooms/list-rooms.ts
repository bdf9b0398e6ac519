import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { listRooms } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.list, ({ identity, params, query }) =>
  listRooms(identity, params.claim_id, query.archived),
);
