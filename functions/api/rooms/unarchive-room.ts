import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { unarchiveRoomFor } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.unarchive, ({ identity, params }) =>
  unarchiveRoomFor(identity, params.room_id),
);
