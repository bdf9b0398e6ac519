import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { redirectToFileThumb } from '../../../lib/insured/thumb-service';

export const handler = publicEndpoint(insuredDraftRoutes.fileThumb, ({ params, event }) =>
  redirectToFileThumb(params.token, params.file_id, { ip: clientIp(event) }),
);
