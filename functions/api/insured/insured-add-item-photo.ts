import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { addItemPhoto } from '../../../lib/insured/file-service';

export const handler = publicEndpoint(insuredDraftRoutes.addItemPhoto, ({ params, body, event }) =>
  addItemPhoto(params.token, params.item_id, body, { ip: clientIp(event) }),
);
