import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addItemPhoto } from '../../../lib/insured/file-service';

export const handler = httpEndpoint(insuredDraftRoutes.addItemPhoto, ({ params, body, event }) =>
  addItemPhoto(params.token, params.item_id, body, { ip: clientIp(event) }),
);
