import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { redirectToFileContent } from '../../../lib/insured/file-service';

export const handler = httpEndpoint(insuredDraftRoutes.fileContent, ({ params, event }) =>
  redirectToFileContent(params.token, params.file_id, { ip: clientIp(event) }),
);
