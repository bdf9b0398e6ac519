import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addDraftItem } from '../../../lib/insured/item-service';

export const handler = publicEndpoint(insuredDraftRoutes.addItem, ({ params, body, event }) =>
  addDraftItem(params.token, params.room_id, body, { ip: clientIp(event) }),
);
