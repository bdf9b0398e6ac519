import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { partUrlsFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.partUrls, ({ identity, params, body }) =>
  partUrlsFor(identity, params.id, body.parts),
);
