import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { removeDraftItem } from '../../../lib/insured/item-service';

export const handler = httpEndpoint(insuredDraftRoutes.removeItem, ({ params, event }) =>
  removeDraftItem(params.token, params.item_id, { ip: clientIp(event) }),
);
