import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { listStagedPhotosFor } from '../../../lib/photos/photo-service';

export const handler = httpEndpoint(photoRoutes.listStaged, ({ identity, params }) =>
  listStagedPhotosFor(identity, params.id),
);
