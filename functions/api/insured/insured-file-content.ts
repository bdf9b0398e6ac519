import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { redirectToFileContent } from '../../../lib/insured/file-service';

export const handler = publicEndpoint(insuredDraftRoutes.fileContent, ({ params, event }) =>
  redirectToFileContent(params.token, params.file_id, { ip: clientIp(event) }),
);
