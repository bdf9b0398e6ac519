import { httpEndpoint } from '../../../lib/http/endpoint';
import { setStagedPhotosDeleted } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.delete, ({ identity, params, body }) => setStagedPhotosDeleted(identity, params.id, body, true));
