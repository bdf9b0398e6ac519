import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { showInsuredUpload } from '../../../lib/insured/upload-service';

export const handler = publicEndpoint(insuredDraftRoutes.uploadStatus, ({ params, event }) =>
  showInsuredUpload(params.token, params.id, { ip: clientIp(event) }),
);
