import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { unarchiveRoom } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.unarchive, ({ identity, params }) =>
  unarchiveRoom(identity, params.room_id),
);
