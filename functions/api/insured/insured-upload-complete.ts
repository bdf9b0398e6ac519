import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { completeInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = publicEndpoint(insuredDraftRoutes.uploadComplete, ({ params, event }) =>
  completeInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
