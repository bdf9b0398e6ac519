import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { showRoom } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.get, ({ identity, params }) => showRoom(identity, params.room_id));
