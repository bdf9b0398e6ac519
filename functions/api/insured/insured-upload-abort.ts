import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { abortInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = publicEndpoint(insuredDraftRoutes.uploadAbort, ({ params, event }) =>
  abortInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
