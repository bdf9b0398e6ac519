import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { removeDraftItem } from '../../../lib/insured/item-service';

export const handler = publicEndpoint(insuredDraftRoutes.removeItem, ({ params, event }) =>
  removeDraftItem(params.token, params.item_id, { ip: clientIp(event) }),
);
