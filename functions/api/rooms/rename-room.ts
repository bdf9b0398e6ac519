import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { renameRoomFor } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.rename, ({ identity, params, body }) =>
  renameRoomFor(identity, params.room_id, body.name),
);
