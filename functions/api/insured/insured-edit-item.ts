import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { editDraftItem } from '../../../lib/insured/item-service';

export const handler = publicEndpoint(insuredDraftRoutes.editItem, ({ params, body, event }) =>
  editDraftItem(params.token, params.item_id, body, { ip: clientIp(event) }),
);
