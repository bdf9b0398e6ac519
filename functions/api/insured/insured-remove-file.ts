import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { removeFile } from '../../../lib/insured/file-service';

export const handler = publicEndpoint(insuredDraftRoutes.removeFile, ({ params, event }) =>
  removeFile(params.token, params.file_id, { ip: clientIp(event) }),
);
