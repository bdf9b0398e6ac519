import { listMedia } from '../../../lib/admin/media-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.media, ({ query }) => listMedia(query));
