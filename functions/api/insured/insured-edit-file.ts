import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { editFileNote } from '../../../lib/insured/file-service';

export const handler = httpEndpoint(insuredDraftRoutes.editFile, ({ params, body, event }) =>
  editFileNote(params.token, params.file_id, body, { ip: clientIp(event) }),
);
