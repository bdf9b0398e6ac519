import { httpEndpoint } from '../../../lib/api/endpoint';
import { setGroupDetails } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.details, ({ identity, params, body }) =>
  setGroupDetails(identity, params.id, body),
);
