import { httpEndpoint } from '../../../lib/http/endpoint';
import { setStagedPhotosDeleted } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.restore, ({ identity, params, body }) => setStagedPhotosDeleted(identity, params.id, body, false));
