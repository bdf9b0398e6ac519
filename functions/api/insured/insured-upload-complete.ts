import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { completeInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = httpEndpoint(insuredDraftRoutes.uploadComplete, ({ params, event }) =>
  completeInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
