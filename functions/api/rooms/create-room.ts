import { httpEndpoint } from '../../../lib/api/endpoint';
import { roomRoutes } from '../../../lib/rooms/routes';
import { createRoom } from '../../../lib/rooms/service';

export const handler = httpEndpoint(roomRoutes.create, ({ identity, params, body }) =>
  createRoom(identity, params.claim_id, body.name),
);
