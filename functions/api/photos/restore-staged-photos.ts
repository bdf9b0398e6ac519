import { httpEndpoint } from '../../../lib/api/endpoint';
import { setStagedPhotosDeleted } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.restore, ({ identity, params, body }) =>
  setStagedPhotosDeleted(identity, params.id, body, false),
);
