import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { startPhotoUpload } from '../../../lib/photos/upload-service';

export const handler = httpEndpoint(photoRoutes.upload, ({ identity, body }) => startPhotoUpload(identity, body));
