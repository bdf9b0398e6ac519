import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { archiveRoomFor } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.archive, ({ identity, params }) =>
  archiveRoomFor(identity, params.room_id),
);
