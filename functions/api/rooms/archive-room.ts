import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { archiveRoom } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.archive, ({ identity, params }) =>
  archiveRoom(identity, params.room_id),
);
