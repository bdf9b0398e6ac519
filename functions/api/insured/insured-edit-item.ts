import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { editDraftItem } from '../../../lib/insured/item-service';

export const handler = httpEndpoint(insuredDraftRoutes.editItem, ({ params, body, event }) =>
  editDraftItem(params.token, params.item_id, body, { ip: clientIp(event) }),
);
