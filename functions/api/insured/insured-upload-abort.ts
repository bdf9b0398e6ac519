import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { abortInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = httpEndpoint(insuredDraftRoutes.uploadAbort, ({ params, event }) =>
  abortInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
