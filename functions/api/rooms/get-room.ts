import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { getRoomFor } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.get, ({ identity, params }) => getRoomFor(identity, params.room_id));
