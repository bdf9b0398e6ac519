import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { initInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = publicEndpoint(insuredDraftRoutes.uploadInit, ({ params, body, event }) =>
  initInsuredUpload(params.token, body, { ip: clientIp(event) }),
);
