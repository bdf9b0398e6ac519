import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { completeUploadFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.complete, ({ identity, params }) =>
  completeUploadFor(identity, params.id),
);
