import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { editFileNote } from '../../../lib/insured/file-service';

export const handler = publicEndpoint(insuredDraftRoutes.editFile, ({ params, body, event }) =>
  editFileNote(params.token, params.file_id, body, { ip: clientIp(event) }),
);
