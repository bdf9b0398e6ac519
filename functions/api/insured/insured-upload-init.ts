import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { initInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = httpEndpoint(insuredDraftRoutes.uploadInit, ({ params, body, event }) =>
  initInsuredUpload(params.token, body, { ip: clientIp(event) }),
);
