import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { showInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = httpEndpoint(insuredDraftRoutes.uploadStatus, ({ params, event }) =>
  showInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
