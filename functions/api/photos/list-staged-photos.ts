import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { listStagedPhotosOfJob } from '../../../lib/photos/photo-service';

export const handler = httpEndpoint(photoRoutes.listStaged, ({ identity, params }) =>
  listStagedPhotosOfJob(identity, params.id),
);
