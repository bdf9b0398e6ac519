import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { listSourcePhotos } from '../../../lib/photos/photo-service';

export const handler = httpEndpoint(photoRoutes.sourcePhotos, ({ identity, params }) =>
  listSourcePhotos(identity, params.id),
);
