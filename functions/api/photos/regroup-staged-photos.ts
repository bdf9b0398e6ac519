import { httpEndpoint } from '../../../lib/api/endpoint';
import { regroupStagedPhotos } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.regroup, ({ identity, params, body }) =>
  regroupStagedPhotos(identity, params.id, body),
);
