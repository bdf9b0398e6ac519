import { httpEndpoint } from '../../../lib/http/endpoint';
import { setGroupDetails } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.details, ({ identity, params, body }) => setGroupDetails(identity, params.id, body));
