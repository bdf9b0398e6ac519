import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { listSourcePhotosFor } from '../../../lib/photos/photo-service';

export const handler = httpEndpoint(photoRoutes.sourcePhotos, ({ identity, params }) =>
  listSourcePhotosFor(identity, params.id),
);
