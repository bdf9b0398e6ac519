import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { uploadStatusFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.status, ({ identity, params }) =>
  uploadStatusFor(identity, params.id),
);
