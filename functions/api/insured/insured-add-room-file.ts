import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addRoomPhoto } from '../../../lib/insured/file-service';

export const handler = publicEndpoint(insuredDraftRoutes.addRoomFile, ({ params, body, event }) =>
  addRoomPhoto(params.token, params.room_id, body, { ip: clientIp(event) }),
);
