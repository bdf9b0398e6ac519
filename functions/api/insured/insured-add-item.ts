import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addDraftItem } from '../../../lib/insured/item-service';

export const handler = httpEndpoint(insuredDraftRoutes.addItem, ({ params, body, event }) =>
  addDraftItem(params.token, params.room_id, body, { ip: clientIp(event) }),
);
