import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { presignPartUrls } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.partUrls, ({ identity, params, body }) =>
  presignPartUrls(identity, params.id, body.parts),
);
