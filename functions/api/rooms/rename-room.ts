import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { renameRoom } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.rename, ({ identity, params, body }) =>
  renameRoom(identity, params.room_id, body.name),
);
