import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { appendPhotoUpload } from '../../../lib/photos/upload-service';

export const handler = httpEndpoint(photoRoutes.append, ({ identity, params, body }) =>
  appendPhotoUpload(identity, params.id, body),
);
