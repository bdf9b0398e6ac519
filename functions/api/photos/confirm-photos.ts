import { httpEndpoint } from '../../../lib/api/endpoint';
import { confirmPhotoUpload } from '../../../lib/photos/upload-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.confirm, ({ identity, params, body }) =>
  confirmPhotoUpload(identity, params.id, body),
);
