import { httpEndpoint } from '../../../lib/api/endpoint';
import { clearStagedPhotoSegments } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.clearSegments, ({ identity, params, body }) =>
  clearStagedPhotoSegments(identity, params.id, body),
);
