import { httpEndpoint } from '../../../lib/api/endpoint';
import { segmentStagedPhoto } from '../../../lib/photos/grouping-service';
import { photoRoutes } from '../../../lib/photos/routes';

export const handler = httpEndpoint(photoRoutes.segment, ({ identity, params, body }) =>
  segmentStagedPhoto(identity, params.id, body),
);
