import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addRoomPhoto } from '../../../lib/insured/file-service';

export const handler = httpEndpoint(insuredDraftRoutes.addRoomFile, ({ params, body, event }) =>
  addRoomPhoto(params.token, params.room_id, body, { ip: clientIp(event) }),
);
